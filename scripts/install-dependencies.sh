#!/usr/bin/env bash
# Installs the Debian 12 packages QKV Studio needs that are missing; installs nothing when all
# are present (so it works offline on a prepared machine). One line of output per step; apt's
# own output goes to build/install.log (printed in part if it fails).
# Usage: install-dependencies.sh [--tests | --package]
#   --tests    also what the test suite builds with and runs (no test skips for a missing tool)
#   --package  also what cpack -G DEB needs (dpkg-shlibdeps computes the package's dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/steps.sh

packages=(
  build-essential cmake pkg-config
  libeigen3-dev nlohmann-json3-dev
  # SentencePiece tokenizers (LLaMA, T5, Marian checkpoints): core links libsentencepiece, so the
  # app needs it too, not only the tests (its fixtures were made with python3-sentencepiece).
  libsentencepiece-dev
  # tokenizer.json: its regexes (PCRE2) and Unicode normalisation forms (utf8proc).
  libpcre2-dev libutf8proc-dev
  # The model's large float products (core/common/onednn_products.hpp, blas_products.hpp); without
  # them they run on Eigen.
  libdnnl-dev libopenblas-dev
  qt6-base-dev qt6-charts-dev qt6-svg-dev
  # Without it find_package(Qt6 ... Charts) fails under --no-install-recommends (docs/architecture.md, "Rules learned on this machine").
  libqt6opengl6-dev libgl-dev
  # Qt renders every string as boxes when no font is installed.
  fonts-dejavu-core
  # A faster build (cmake/BuildSpeed.cmake): Ninja, a compiler cache shared by every clone on the
  # machine, and a linker several times faster than ld.bfd.
  ninja-build ccache mold
)
if [[ "${1:-}" == "--tests" ]]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev xvfb xauth
    # Exported PDFs rendered back to pixels (pdftoppm, pdfinfo).
    poppler-utils
    # The screen reader's view over AT-SPI (tests/ui/accessibility/atspi): a private D-Bus
    # session, the accessibility bus and registry, Gio for Debian's python3 to read them, and
    # xdotool to focus the window and press an arrow key under Xvfb.
    dbus-daemon at-spi2-core python3-gi xdotool
    # The installation tests: the manual page, the launcher entry, the metainfo, the MIME
    # database, the default application for sessions, and the Debian package.
    groff-base desktop-file-utils appstream shared-mime-info xdg-utils dpkg-dev file)
elif [[ "${1:-}" == "--package" ]]; then
  packages+=(dpkg-dev file)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=()
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null || { echo "error: run as root or install sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
install_missing() {
  echo "Installing: ${missing[*]}" &&
    "${sudo[@]}" apt-get update &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}
step build/install.log "Installing ${#missing[@]} packages" install_missing
