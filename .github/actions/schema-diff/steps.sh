#!/usr/bin/env bash
# The steps of the ACP schema diff action (action.yml beside this file), one per argument:
#   key      the cache key and install root of acp-tools, from this repository's sources
#   install  build acp-tools from this repository unless the cache restored it
#   diff     run the diff: job summary, annotations, step outputs, the comment's body
#   comment  create or update the pull request's one comment with the report
# Each reads the variables GitHub Actions sets (GITHUB_EVENT_PATH, GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY, RUNNER_TEMP, ...) and the inputs as INPUT_* variables, so a test can run it
# without GitHub (tools/tests/it/action.rs).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
comment_file="${RUNNER_TEMP:?}/acp-schema-diff-comment.md"

case "${1:?step}" in
key)
  # Everything acp-tools is built from: a change to any of it is a new build.
  hash="$(cd "$repo" && find Cargo.toml Cargo.lock schema/upserts.json schema/conversions.json \
    tools xtask codegen generated runtime convert macros -type f \
    \( -name '*.rs' -o -name '*.toml' -o -name '*.json' \) -not -path '*/target/*' -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
  root="${RUNNER_TOOL_CACHE:-$RUNNER_TEMP}/acp-tools-$hash"
  echo "key=acp-tools-${RUNNER_OS:-Linux}-$hash" >>"$GITHUB_OUTPUT"
  echo "root=$root" >>"$GITHUB_OUTPUT"
  ;;
install)
  if [ -x "$TOOLS_ROOT/bin/acp-tools" ]; then
    echo "acp-tools restored from the cache ($TOOLS_ROOT)"
    exit 0
  fi
  start=$(date +%s)
  cargo install --locked --path "$repo/tools" --bin acp-tools --root "$TOOLS_ROOT"
  echo "built acp-tools in $(($(date +%s) - start)) s; the cache keeps it for the next run with this revision"
  ;;
diff)
  old="${INPUT_OLD:-}"
  if [ -z "$old" ]; then
    base="$(python3 -c 'import json, os; print(json.load(open(os.environ["GITHUB_EVENT_PATH"]))["pull_request"]["base"]["sha"])' 2>/dev/null || true)"
    if [ -z "$base" ]; then
      echo "::error title=ACP schema diff::no old side: the event is not a pull request; give the action an \`old\` input"
      exit 2
    fi
    # The base commit must be in the clone (a shallow checkout does not have it).
    git cat-file -e "$base^{commit}" 2>/dev/null || git fetch --quiet --no-tags --depth=1 origin "$base"
    old="git:$base:$INPUT_PATH"
  fi
  new="${INPUT_NEW:-$INPUT_PATH}"
  args=(diff "$old" "$new" --github-action --comment-file "$comment_file")
  [ -z "${INPUT_PROTOCOL:-}" ] || args+=(--protocol "$INPUT_PROTOCOL")
  [ -z "${INPUT_FAIL_ON:-}" ] || args+=(--fail-on "$INPUT_FAIL_ON")
  [ -z "${INPUT_ACCEPT:-}" ] || args+=(--accept "$INPUT_ACCEPT")
  status=0
  "$TOOLS_ROOT/bin/acp-tools" "${args[@]}" || status=$?
  # 1 is `fail-on` met: the `gate` step fails the job after the comment is written.
  [ "$status" -le 1 ] || exit "$status"
  ;;
comment)
  python3 - "$comment_file" <<'PY'
import json, os, sys, urllib.request

event = json.load(open(os.environ["GITHUB_EVENT_PATH"]))
number = (event.get("pull_request") or {}).get("number")
if not number:
    print("not a pull request: no comment")
    sys.exit(0)
body = open(sys.argv[1], encoding="utf-8").read()
marker = body.split("\n", 1)[0]
limit = 65000  # GitHub refuses a comment over 65,536 characters
if len(body) > limit:
    body = body[:limit] + "\n\n(cut here: the whole report is in the job summary)\n"
api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
repo = os.environ["GITHUB_REPOSITORY"]


def call(method, url, data=None):
    request = urllib.request.Request(
        url,
        method=method,
        data=None if data is None else json.dumps(data).encode(),
        headers={
            "Authorization": "Bearer " + os.environ["GITHUB_TOKEN"],
            "Accept": "application/vnd.github+json",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"null")


mine, page = None, 1
while mine is None:
    comments = call("GET", f"{api}/repos/{repo}/issues/{number}/comments?per_page=100&page={page}")
    mine = next((c for c in comments if (c.get("body") or "").startswith(marker)), None)
    if len(comments) < 100:
        break
    page += 1
if mine:
    call("PATCH", f"{api}/repos/{repo}/issues/comments/{mine['id']}", {"body": body})
    print(f"updated comment {mine['id']}")
else:
    created = call("POST", f"{api}/repos/{repo}/issues/{number}/comments", {"body": body})
    print(f"created comment {created.get('id')}")
PY
  ;;
*)
  echo "unknown step: $1" >&2
  exit 2
  ;;
esac
