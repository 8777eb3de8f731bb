#!/usr/bin/env bash
# Builds the Temporal CLI (dev server + embedded Web UI) into .tools/bin with `go install`
# from the Go module proxy. v1.5.1 is the newest release `go install` accepts (TOOLCHAIN.md).
# Idempotent: an existing binary of the pinned version is reused.
set -euo pipefail
version="${TEMPORAL_CLI_VERSION:-1.5.1}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin_dir="$root/.tools/bin"
target="$bin_dir/temporal"
stamp="$bin_dir/.temporal-version"
if [[ -x "$target" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]]; then
  echo "$target"
  exit 0
fi
command -v go >/dev/null || { echo "go is required to build the Temporal CLI (or set TEMPORAL_CLI_PATH)" >&2; exit 1; }
mkdir -p "$bin_dir"
echo "building Temporal CLI v$version into $bin_dir (first time only; takes a few minutes)" >&2
GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-modcacherw GOBIN="$bin_dir" \
  GONOSUMDB="${GONOSUMDB:-github.com/temporalio/cli}" \
  go install -trimpath -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$version" \
  "github.com/temporalio/cli/cmd/temporal@v$version" >&2
echo "$version" > "$stamp"
echo "$target"
