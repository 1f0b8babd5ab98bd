#!/usr/bin/env bash
# Checks of the installed application, one per ctest test (tests/packaging/CMakeLists.txt):
#
#   check_installation.sh manual-page FILE        groff renders the page without a warning
#   check_installation.sh launcher FILE           desktop-file-validate: no error or warning
#   check_installation.sh metainfo FILE           appstreamcli validate passes
#   check_installation.sh install-tree BUILD ID MIME BINDIR APPDATADIR DATADIR MANDIR
#       cmake --install into an empty prefix: exactly the expected files, the icons at their
#       sizes, the installed executable runs, finds its data and draws an installed example;
#       the desktop database opens sessions with the launcher entry.
#   check_installation.sh debian-package BUILD VERSION
#       cpack -G DEB: the package's name, version, maintainer, computed dependencies and files.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
need() {  # need TOOL PACKAGE
  command -v "$1" >/dev/null || fail "$1 is not installed (Debian package $2; scripts/install-dependencies.sh --tests installs it)"
}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/qkv-installation-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

check_manual_page() {
  need groff groff-base
  local warnings
  warnings=$(groff -man -Tutf8 -ww -z "$1" 2>&1) || fail "groff failed on $1: $warnings"
  [[ -z "$warnings" ]] || fail "groff warns about $1:"$'\n'"$warnings"
  # What `man` shows: the name line and the export command's options.
  local text
  text=$(groff -man -Tutf8 -P-c -P-b -P-u "$1" 2>/dev/null)
  grep -q 'qkv-studio - multi-head attention, made visible' <<<"$text" || fail "no NAME line in $1"
  grep -q -- '--format FORMAT' <<<"$text" || fail "no --format option in $1"
  echo "ok: $1 renders without warnings"
}

check_launcher() {
  need desktop-file-validate desktop-file-utils
  local report
  report=$(desktop-file-validate "$1" 2>&1) || fail "desktop-file-validate rejects $1:"$'\n'"$report"
  # Errors and warnings fail; hints do not (Categories=Education;Science; names two main
  # categories on purpose: the app belongs in both menus, and the validator hints at that).
  ! grep -E ': (error|warning):' <<<"$report" || fail "desktop-file-validate reports on $1"
  [[ -z "$report" ]] || echo "$report"
  echo "ok: $1 is a valid launcher entry"
}

check_metainfo() {
  need appstreamcli appstream
  local report
  report=$(appstreamcli validate --no-net --explain "$1" 2>&1) || fail "appstreamcli rejects $1:"$'\n'"$report"
  echo "$report"
}

png_size() {  # the width and height in a PNG's IHDR chunk
  od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'
}

check_install_tree() {
  local build=$1 id=$2 mime=$3 bindir=$4 appdata=$5 datadir=$6 mandir=$7
  local prefix=$scratch/prefix
  cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1 || { cat "$scratch/install.log"; fail "cmake --install failed"; }

  local expected=(
    "$bindir/qkv-studio"
    "$appdata/examples/decoder.qkv.json" "$appdata/examples/low-rank.qkv.json"
    "$appdata/examples/paper-random.qkv.json" "$appdata/examples/translation.qkv.json"
    "$appdata/examples/trained-reverse.qkv.json"
    "$appdata/lexicon/lexicon.txt"
    "$appdata/demo-model/config.json" "$appdata/demo-model/model.safetensors"
    "$appdata/demo-model/vocab.json" "$appdata/demo-model/merges.txt"
    "$datadir/applications/$id.desktop" "$datadir/metainfo/$id.metainfo.xml" "$datadir/mime/packages/$id.xml"
    "$datadir/icons/hicolor/scalable/apps/$id.svg" "$mandir/man1/qkv-studio.1.gz")
  local sizes=(16 22 24 32 48 64 128 256)
  for size in "${sizes[@]}"; do expected+=("$datadir/icons/hicolor/${size}x${size}/apps/$id.png"); done
  diff <(printf '%s\n' "${expected[@]}" | sort) <(cd "$prefix" && find . -type f | sed 's|^\./||' | sort) >"$scratch/files.diff" ||
    { cat "$scratch/files.diff"; fail "the installed files differ from the expected (< expected, > installed)"; }
  [[ -x "$prefix/$bindir/qkv-studio" ]] || fail "the installed qkv-studio is not executable"
  for size in "${sizes[@]}"; do
    local png="$prefix/$datadir/icons/hicolor/${size}x${size}/apps/$id.png"
    [[ "$(png_size "$png")" == "${size}x${size}" ]] || fail "$png is $(png_size "$png"), not ${size}x${size}"
  done

  # The installed executable runs and finds its data beside itself (not in the build tree).
  local version
  version=$(env -u QKV_STUDIO_DATA_DIR "$prefix/$bindir/qkv-studio" --version) || fail "qkv-studio --version failed"
  [[ "$(head -n1 <<<"$version")" =~ ^qkv-studio\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version printed: $version"
  [[ "$(sed -n 2p <<<"$version")" == "examples and lexicon: $prefix/$appdata" ]] ||
    fail "the installed app looks for its data elsewhere: $version"
  env -u QKV_STUDIO_DATA_DIR -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM \
    "$prefix/$bindir/qkv-studio" figure --session "$prefix/$appdata/examples/translation.qkv.json" \
    --figure heads --format png --out "$scratch/heads.png" || fail "the installed app cannot draw an installed example"
  [[ "$(png_size "$scratch/heads.png")" =~ ^[0-9]{3,}x[0-9]{3,}$ ]] || fail "the figure is $(png_size "$scratch/heads.png")"

  # Sessions open with the launcher entry in the desktop's databases, as a package's triggers
  # would make them (a private XDG environment, so nothing of this machine's is read).
  need update-mime-database shared-mime-info
  need update-desktop-database desktop-file-utils
  need xdg-mime xdg-utils
  update-mime-database "$prefix/$datadir/mime" || fail "update-mime-database failed"
  grep -qx "[0-9]*:$mime:\*\.qkv\.json" "$prefix/$datadir/mime/globs2" || fail "no *.qkv.json glob for $mime in globs2"
  update-desktop-database "$prefix/$datadir/applications" || fail "update-desktop-database failed"
  local default
  default=$(env -u XDG_CURRENT_DESKTOP -u DESKTOP_SESSION -u KDE_FULL_SESSION -u GNOME_DESKTOP_SESSION_ID \
    XDG_DATA_DIRS="$prefix/$datadir" XDG_DATA_HOME="$scratch/home/data" \
    XDG_CONFIG_HOME="$scratch/home/config" XDG_CONFIG_DIRS="$scratch/etc" HOME="$scratch/home" \
    xdg-mime query default "$mime")
  [[ "$default" == "$id.desktop" ]] || fail "xdg-mime opens $mime with '$default', not $id.desktop"
  echo "ok: ${#expected[@]} files installed; the installed app found its data and drew an example; $mime opens with $default"
}

check_debian_package() {
  local build=$1 version=$2
  need dpkg-deb dpkg
  need dpkg-shlibdeps dpkg-dev
  cpack -G DEB -B "$scratch/package" --config "$build/CPackConfig.cmake" >"$scratch/cpack.log" 2>&1 ||
    { cat "$scratch/cpack.log"; fail "cpack -G DEB failed"; }
  local deb
  deb=$(ls "$scratch"/package/qkv-studio_"$version"_*.deb 2>/dev/null | head -n1)
  [[ -n "$deb" ]] || { ls "$scratch/package"; fail "no qkv-studio_${version}_*.deb"; }
  [[ "$(dpkg-deb -f "$deb" Package)" == qkv-studio ]] || fail "package name: $(dpkg-deb -f "$deb" Package)"
  [[ "$(dpkg-deb -f "$deb" Version)" == "$version" ]] || fail "package version: $(dpkg-deb -f "$deb" Version)"
  [[ -n "$(dpkg-deb -f "$deb" Maintainer)" ]] || fail "no maintainer"
  local depends
  depends=$(dpkg-deb -f "$deb" Depends)
  for package in libc6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6 fonts-dejavu-core; do
    grep -q "\b$package\b" <<<"$depends" || fail "Depends lacks $package: $depends"
  done
  # Read whole first: grep -q stops at the first match, and dpkg-deb, killed by the closed pipe,
  # would fail the pipeline under pipefail now and then.
  description="$(dpkg-deb -f "$deb" Description)"
  grep -q 'multi-head attention' <<<"$description" || fail "no description"
  local files
  files=$(dpkg-deb -c "$deb")
  for path in /bin/qkv-studio /share/applications/ /share/man/man1/qkv-studio.1.gz /share/qkv-studio/examples/translation.qkv.json; do
    grep -q -- "$path" <<<"$files" || fail "the package has no $path"
  done
  echo "ok: $(basename "$deb"): Depends: $depends"
}

case "${1:-}" in
  manual-page) check_manual_page "$2" ;;
  launcher) check_launcher "$2" ;;
  metainfo) check_metainfo "$2" ;;
  install-tree) shift; check_install_tree "$@" ;;
  debian-package) shift; check_debian_package "$@" ;;
  *) fail "unknown check '${1:-}'" ;;
esac
