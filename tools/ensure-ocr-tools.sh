#!/usr/bin/env bash
# Makes sure the OCR tools the ocr package runs are installed (DESIGN.md §3): tesseract
# with the Japanese models (horizontal and vertical) and the orientation model, poppler's
# pdftotext/pdftoppm/pdfinfo, and the IPAex Gothic and Mincho fonts the OCR tests and the
# accuracy run render invoices with (Mincho: the holdout layouts of ocr/invoicegen).
# Installs Debian's packages as root with apt when something is missing; otherwise prints
# the command to run and fails, so that the Go tests never run without them. With
# --or-warn (task dev) it prints the command and goes on: the app runs, and its upload
# page says that invoices are not read until the tools are installed.
set -euo pipefail

or_warn=false
[[ ${1:-} == --or-warn ]] && or_warn=true

PACKAGES=(tesseract-ocr tesseract-ocr-jpn tesseract-ocr-jpn-vert tesseract-ocr-osd poppler-utils fonts-ipaexfont-gothic fonts-ipaexfont-mincho)
FONTS=(/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf /usr/share/fonts/opentype/ipaexfont-mincho/ipaexm.ttf)

missing() {
  local m=()
  for b in tesseract pdftotext pdftoppm pdfinfo; do
    command -v "$b" >/dev/null 2>&1 || m+=("$b")
  done
  if command -v tesseract >/dev/null 2>&1; then
    langs=$(tesseract --list-langs 2>/dev/null || true)
    for l in jpn jpn_vert eng osd; do
      grep -qx "$l" <<<"$langs" || m+=("tessdata:$l")
    done
  fi
  for f in "${FONTS[@]}"; do
    [[ -f $f ]] || m+=("$f")
  done
  echo "${m[*]:-}"
}

m=$(missing)
if [[ -z $m ]]; then
  echo "ocr-tools: tesseract $(tesseract --version 2>&1 | head -n 1 | awk '{print $2}'), poppler and the IPAex fonts are installed"
  exit 0
fi

cmd="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${PACKAGES[*]}"
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "ocr-tools: missing $m; installing: $cmd"
  t=$(date +%s.%N)
  # The other set-up tasks run beside this one and may hold apt's lock (PostgreSQL, say):
  # wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${PACKAGES[@]}" >/dev/null
  m=$(missing)
  if [[ -n $m ]]; then
    echo "ocr-tools: still missing after apt-get install: $m" >&2
    exit 1
  fi
  awk -v s="$t" -v e="$(date +%s.%N)" 'BEGIN { printf "ocr-tools: installed in %.1f s\n", e - s }'
  exit 0
fi
echo "ocr-tools: missing $m. Install the OCR tools as root:" >&2
echo "  $cmd" >&2
if $or_warn; then
  echo "ocr-tools: the app runs without them: uploaded invoices are kept but not read, and the upload page says so" >&2
  exit 0
fi
exit 1
