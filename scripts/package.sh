#!/usr/bin/env bash
# Builds QKV Studio's Debian package: installs what is missing, builds a portable Release for
# /usr in build-package/ (no tests, no benchmarks, no -march=native) and runs cpack -G DEB, which
# computes the package's dependencies with dpkg-shlibdeps. One line per step; the full output is
# in build-package/install.log and build-package/build.log.
#
#   scripts/package.sh            build build-package/qkv-studio_VERSION_ARCH.deb
#   scripts/package.sh --install  build it, then install it with apt-get (as root or through sudo)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/steps.sh

case "${1:-}" in
  "" | --install) ;;
  *) echo "usage: scripts/package.sh [--install]" >&2; exit 2 ;;
esac

scripts/install-dependencies.sh --package
build=build-package
build_package() {
  rm -f "$build"/qkv-studio_*.deb &&
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DQKV_NATIVE=OFF \
      -DQKV_BUILD_TESTS=OFF -DQKV_BUILD_BENCHMARKS=OFF &&
    cmake --build "$build" -j "$(nproc)" &&
    (cd "$build" && cpack -G DEB)
}
step "$build/build.log" "Building the Debian package" build_package
deb=$(ls "$build"/qkv-studio_*.deb)
echo "Built $deb"

if [[ "${1:-}" == "--install" ]]; then
  sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { echo "error: run as root or install sudo to install $deb" >&2; exit 1; }
    sudo=(sudo)
  fi
  install_package() { DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y "./$deb"; }
  step "$build/install-package.log" "Installing $deb" install_package
  echo "Installed: run qkv-studio, find QKV Studio in the applications menu, read man qkv-studio."
else
  echo "Install it with: sudo apt-get install ./$deb"
fi
