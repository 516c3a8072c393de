//! The schema diff action (`.github/actions/schema-diff/action.yml`) run
//! without GitHub: its steps, read from the action, run in order with the
//! variables and files GitHub provides (the event payload, `GITHUB_OUTPUT`
//! per step, `GITHUB_STEP_SUMMARY`, `RUNNER_TEMP`), their `${{ }}`
//! expressions and `if:` conditions evaluated, on a repository of two
//! revisions of a schema, with a fake of the GitHub REST API for the
//! comment. The cache step is played as a hit: it restores the `acp-tools`
//! this test run built (building it again is what a miss does, with
//! `cargo install`, which is left to GitHub).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use yaml_rust2::YamlLoader;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/action-test").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A comment the fake API holds.
#[derive(Clone, Debug)]
struct Comment {
    id: u64,
    body: String,
}

/// A fake of the REST API the comment step calls: listing, creating and
/// updating issue comments, with every request recorded (method and path).
struct FakeApi {
    url: String,
    comments: Arc<Mutex<Vec<Comment>>>,
    requests: Arc<Mutex<Vec<String>>>,
}

fn fake_api() -> FakeApi {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let comments: Arc<Mutex<Vec<Comment>>> = Arc::default();
    let requests: Arc<Mutex<Vec<String>>> = Arc::default();
    let (c, r) = (comments.clone(), requests.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let (method, path) = {
                let mut w = line.split_whitespace();
                (w.next().unwrap_or_default().to_owned(), w.next().unwrap_or_default().to_owned())
            };
            let (mut length, mut authorized) = (0, false);
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                let lower = h.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                authorized |= lower.starts_with("authorization: bearer test-token");
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            r.lock().unwrap().push(format!("{method} {path}"));
            let sent: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let mut all = c.lock().unwrap();
            let answer = match (method.as_str(), authorized) {
                (_, false) => serde_json::json!({"message": "Bad credentials"}),
                ("GET", _) => serde_json::json!(all
                    .iter()
                    .map(|x| serde_json::json!({"id": x.id, "body": x.body}))
                    .collect::<Vec<_>>()),
                ("POST", _) => {
                    let id = 100 + all.len() as u64;
                    all.push(Comment { id, body: sent["body"].as_str().unwrap().to_owned() });
                    serde_json::json!({"id": id})
                }
                ("PATCH", _) => {
                    let id: u64 = path.rsplit('/').next().unwrap().parse().unwrap();
                    let x = all.iter_mut().find(|x| x.id == id).unwrap();
                    x.body = sent["body"].as_str().unwrap().to_owned();
                    serde_json::json!({"id": id})
                }
                _ => serde_json::json!({}),
            };
            let status = if authorized { "200 OK" } else { "401 Unauthorized" };
            let text = answer.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    FakeApi { url, comments, requests }
}

/// What the expressions of the action can name.
#[derive(Default)]
struct Context {
    inputs: BTreeMap<String, String>,
    github: BTreeMap<String, String>,
    steps: BTreeMap<String, BTreeMap<String, String>>,
}

impl Context {
    fn value(&self, expr: &str) -> String {
        let expr = expr.trim();
        let path: Vec<&str> = expr.split('.').collect();
        match path[..] {
            ["inputs", name] => self.inputs.get(name).cloned().unwrap_or_default(),
            ["github", name] => self.github.get(name).cloned().unwrap_or_else(|| panic!("github.{name}")),
            ["steps", id, "outputs", name] => self.steps.get(id).and_then(|o| o.get(name)).cloned().unwrap_or_default(),
            _ => panic!("an expression the test does not know: {expr}"),
        }
    }

    /// `${{ x }}` replaced by its value.
    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find("${{") {
            out += &rest[..i];
            let end = rest[i..].find("}}").expect("a closed expression") + i;
            out += &self.value(&rest[i + 3..end]);
            rest = &rest[end + 2..];
        }
        out + rest
    }

    /// An `if:` of the forms the action uses: `a == 'v'`, `a != 'v'`.
    fn condition(&self, cond: &str) -> bool {
        for (op, equal) in [("==", true), ("!=", false)] {
            if let Some((a, b)) = cond.split_once(op) {
                return (self.value(a) == b.trim().trim_matches('\'')) == equal;
            }
        }
        panic!("a condition the test does not know: {cond}")
    }
}

/// One run of the action.
struct Run {
    /// The steps that ran, by id, with their exit status.
    ran: Vec<(String, i32)>,
    stdout: String,
    stderr: String,
    summary: String,
    /// The action's outputs (its `outputs:` evaluated at the end).
    outputs: BTreeMap<String, String>,
    /// Whether the job failed (a step exited non-zero).
    failed: bool,
}

fn run_action(repo: &Path, work: &Path, inputs: &[(&str, &str)], event: &serde_json::Value, api: &FakeApi) -> Run {
    let action_dir = root().join(".github/actions/schema-diff");
    let text = std::fs::read_to_string(action_dir.join("action.yml")).unwrap();
    let action = &YamlLoader::load_from_str(&text).expect("action.yml is YAML")[0];
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let mut ctx = Context::default();
    for (name, spec) in action["inputs"].as_hash().unwrap() {
        let name = name.as_str().unwrap().to_owned();
        let default = spec["default"].as_str().unwrap_or_default().to_owned();
        ctx.inputs.insert(name, default);
    }
    for (k, v) in inputs {
        assert!(ctx.inputs.contains_key(*k), "the action has no input `{k}`");
        ctx.inputs.insert((*k).to_owned(), (*v).to_owned());
    }
    ctx.github.insert("action_path".into(), action_dir.display().to_string());
    ctx.github.insert("token".into(), "test-token".into());
    // The token default is an expression itself.
    let token = ctx.substitute(&ctx.inputs["token"]);
    ctx.inputs.insert("token".into(), token);
    let temp = work.join("runner-temp");
    let tools = work.join("tool-cache");
    std::fs::create_dir_all(&temp).unwrap();
    std::fs::create_dir_all(&tools).unwrap();
    let event_path = work.join("event.json");
    std::fs::write(&event_path, event.to_string()).unwrap();
    let summary_path = work.join("summary.md");
    let mut run = Run {
        ran: Vec::new(),
        stdout: String::new(),
        stderr: String::new(),
        summary: String::new(),
        outputs: BTreeMap::new(),
        failed: false,
    };
    for (i, step) in action["runs"]["steps"].as_vec().unwrap().iter().enumerate() {
        let id = step["id"].as_str().map_or(format!("step{i}"), str::to_owned);
        if let Some(cond) = step["if"].as_str() {
            if !ctx.condition(cond) {
                continue;
            }
        }
        if let Some(uses) = step["uses"].as_str() {
            // The cache, played as a hit: the binary of this test run, where
            // the key step said the cache restores it.
            assert!(uses.starts_with("actions/cache@"), "{uses}");
            let path = ctx.substitute(step["with"]["path"].as_str().unwrap());
            assert!(path.starts_with(tools.to_str().unwrap()), "{path}");
            let key = ctx.substitute(step["with"]["key"].as_str().unwrap());
            assert!(key.starts_with("acp-tools-Linux-") && key.len() == "acp-tools-Linux-".len() + 16, "{key}");
            std::fs::create_dir_all(Path::new(&path).join("bin")).unwrap();
            std::fs::copy(env!("CARGO_BIN_EXE_acp-tools"), Path::new(&path).join("bin/acp-tools")).unwrap();
            run.ran.push((id, 0));
            continue;
        }
        assert_eq!(step["shell"].as_str(), Some("bash"), "{id}");
        let script = ctx.substitute(step["run"].as_str().expect("a run step"));
        let output_path = work.join(format!("output-{id}"));
        std::fs::write(&output_path, "").unwrap();
        let mut cmd = Command::new("bash");
        cmd.args(["-e", "-c", &script]).current_dir(repo);
        if let Some(env) = step["env"].as_hash() {
            for (k, v) in env {
                cmd.env(k.as_str().unwrap(), ctx.substitute(v.as_str().unwrap()));
            }
        }
        cmd.env("GITHUB_EVENT_PATH", &event_path)
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_OUTPUT", &output_path)
            .env("GITHUB_STEP_SUMMARY", &summary_path)
            .env("GITHUB_REPOSITORY", "example/schemas")
            .env("GITHUB_API_URL", &api.url)
            .env("GITHUB_WORKSPACE", repo)
            .env("RUNNER_TEMP", &temp)
            .env("RUNNER_TOOL_CACHE", &tools)
            .env("RUNNER_OS", "Linux");
        let o = cmd.output().unwrap();
        run.stdout += &String::from_utf8_lossy(&o.stdout);
        run.stderr += &String::from_utf8_lossy(&o.stderr);
        let code = o.status.code().unwrap_or(-1);
        run.ran.push((id.clone(), code));
        let outputs = std::fs::read_to_string(&output_path).unwrap();
        let parsed = outputs.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned()));
        ctx.steps.insert(id, parsed.collect());
        if code != 0 {
            run.failed = true;
            break;
        }
    }
    run.summary = std::fs::read_to_string(&summary_path).unwrap_or_default();
    for (name, spec) in action["outputs"].as_hash().unwrap() {
        run.outputs.insert(name.as_str().unwrap().to_owned(), ctx.substitute(spec["value"].as_str().unwrap()));
    }
    run
}

fn git(repo: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_owned()
}

/// A repository whose base revision has the old side of the
/// `obligation_rewording` fixture as `schema/v2/schema.json` and whose head
/// has the new side, less `PromptRequest.status` (a removal, reported on the
/// old side); the base commit's id.
fn fixture_repo(dir: &Path) -> String {
    let fixture = root().join("schema/fixtures/diff/causes/obligation_rewording");
    let file = dir.join("schema/v2/schema.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    git(dir, &["init", "-q"]);
    std::fs::copy(fixture.join("old/v2/schema.json"), &file).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
    let base = git(dir, &["rev-parse", "HEAD"]);
    let mut new: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("new/v2/schema.json")).unwrap()).unwrap();
    new["$defs"]["PromptRequest"]["properties"].as_object_mut().unwrap().remove("status");
    std::fs::write(&file, serde_json::to_string_pretty(&new).unwrap()).unwrap();
    git(dir, &["commit", "-qam", "head"]);
    base
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no `{needle}`")) + 1
}

#[test]
fn the_action_reports_on_a_pull_request_and_keeps_one_comment() {
    let work = scratch("pull-request");
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let base = fixture_repo(&repo);
    let event = serde_json::json!({"pull_request": {"number": 7, "base": {"sha": base}}});
    let api = fake_api();
    let inputs = [("fail-on", "dangerous"), ("comment", "true")];
    let run = run_action(&repo, &work, &inputs, &event, &api);
    let ids: Vec<&str> = run.ran.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["key", "step1", "install", "diff", "comment", "gate"], "{}", run.stderr);
    // A dangerous change fails the job, in the last step: the annotations and
    // the comment were written before.
    assert!(run.failed);
    assert_eq!(run.ran.last().unwrap(), &("gate".to_owned(), 1));
    assert!(run.stdout.contains("acp-tools restored from the cache"), "{}", run.stdout);
    // The outputs: findings by level.
    let outputs: Vec<(&str, &str)> = run.outputs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        outputs,
        [("breaking", "0"), ("compatible", "2"), ("dangerous", "4"), ("failed", "true"), ("rust-breaking", "1")],
        "{}",
        run.summary
    );
    // The job summary: the markdown report, then the gate.
    assert!(run.summary.starts_with("## Schema diff\n\n**0 breaking**, **4 dangerous**"), "{}", run.summary);
    assert!(run.summary.contains("### `schema/v2/schema.json` -> `schema/v2/schema.json`"), "{}", run.summary);
    assert!(run.summary.contains("**failed**: a change not accepted meets `fail-on: dangerous`"));
    // The annotations, at the lines of the changes: the new file for what it
    // holds, the base revision's file for the removed property.
    let head = std::fs::read_to_string(repo.join("schema/v2/schema.json")).unwrap();
    let old = git(&repo, &["show", &format!("{base}:schema/v2/schema.json")]);
    let annotation = |kind: &str| -> &str {
        run.stdout
            .lines()
            .find(|l| l.starts_with("::") && l.contains(kind))
            .unwrap_or_else(|| panic!("{kind}: {}", run.stdout))
    };
    let notice = annotation("Notice capability_gating_changed");
    let at = format!("::warning file=schema/v2/schema.json,line={},", line_of(&head, "\"Notice\": {"));
    assert!(notice.starts_with(&at), "{notice}\n{at}");
    let removed = annotation("PromptRequest field_removed");
    let status_line =
        old.lines().enumerate().filter(|(_, l)| l.contains("\"status\": {")).map(|(i, _)| i + 1).next().unwrap();
    assert!(removed.contains(&format!("file=schema/v2/schema.json,line={status_line},")), "{removed}");
    // The comment: created once with the report...
    let comments = api.comments.lock().unwrap().clone();
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.starts_with("<!-- acp-schema-diff -->\n## Schema diff"), "{}", comments[0].body);
    assert_eq!(
        *api.requests.lock().unwrap(),
        [
            "GET /repos/example/schemas/issues/7/comments?per_page=100&page=1",
            "POST /repos/example/schemas/issues/7/comments"
        ]
    );
    // ...and updated, not added to, on the next push; an accepted change no
    // longer fails.
    let accept = work.join("accepted.txt");
    let json = Command::new(env!("CARGO_BIN_EXE_acp-tools"))
        .args(["diff", &format!("git:{base}:schema"), "schema", "--format", "json"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let reports: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let fingerprints: Vec<&str> = reports[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["level"] == "dangerous")
        .map(|c| c["fingerprint"].as_str().unwrap())
        .collect();
    std::fs::write(&accept, fingerprints.join("\n") + "\n").unwrap();
    let again = run_action(
        &repo,
        &work,
        &[("fail-on", "dangerous"), ("comment", "true"), ("accept", accept.to_str().unwrap())],
        &event,
        &api,
    );
    assert!(!again.failed, "{}", again.stderr);
    assert_eq!(again.outputs["failed"], "false");
    let comments = api.comments.lock().unwrap().clone();
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.contains("passed `fail-on: dangerous`"), "{}", comments[0].body);
    assert_eq!(api.requests.lock().unwrap().last().unwrap(), "PATCH /repos/example/schemas/issues/comments/100");
}

#[test]
fn the_action_without_a_pull_request_needs_an_old_side_and_reports_lone_files() {
    let work = scratch("push");
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let base = fixture_repo(&repo);
    let api = fake_api();
    // A push event: no base to diff against, a clear error, exit 2.
    let run = run_action(&repo, &work, &[], &serde_json::json!({"ref": "refs/heads/main"}), &api);
    assert!(run.failed);
    assert_eq!(run.ran.last().unwrap(), &("diff".to_owned(), 2));
    assert!(run.stdout.contains("::error title=ACP schema diff::no old side"), "{}", run.stdout);
    // Sides given: lone files and a revision of one file, read as v2.
    let old = format!("git:{base}:schema/v2/schema.json");
    let inputs = [("old", old.as_str()), ("new", "schema/v2/schema.json"), ("protocol", "v2"), ("comment", "true")];
    let run = run_action(&repo, &work, &inputs, &serde_json::json!({"ref": "refs/heads/main"}), &api);
    assert!(!run.failed, "{}", run.stderr);
    assert_eq!(run.outputs["dangerous"], "4");
    assert!(run.stdout.contains("not a pull request: no comment"), "{}", run.stdout);
    assert!(api.requests.lock().unwrap().is_empty());
    assert!(run.stdout.contains("::warning file=schema/v2/schema.json,"), "{}", run.stdout);
}

/// The lines the README gives another repository's workflow: their `uses:`
/// names this action, their inputs are the action's, and the action runs
/// with them here (as far as this machine can: the cache played as a hit,
/// the REST API faked) on a pull request of the fixture repository.
#[test]
fn the_readme_workflow_lines_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("/.github/actions/schema-diff@"))
        .expect("a yaml block using the action");
    let docs = YamlLoader::load_from_str(block).expect("the README's lines are YAML");
    let w = &docs[0];
    assert_eq!(w["permissions"]["pull-requests"].as_str(), Some("write"));
    let steps = w["jobs"]["schema-diff"]["steps"].as_vec().expect("steps");
    assert_eq!(steps[0]["uses"].as_str(), Some("actions/checkout@v4"));
    assert_eq!(steps[0]["with"]["fetch-depth"].as_i64(), Some(0), "the base revision must be in the clone");
    let step = steps.iter().find(|s| s["uses"].as_str().is_some_and(|u| u.contains("schema-diff@"))).unwrap();
    let uses = step["uses"].as_str().unwrap();
    let path = uses.split_once('@').unwrap().0.splitn(3, '/').nth(2).expect("OWNER/REPO/path");
    assert!(root().join(path).join("action.yml").is_file(), "{uses}: no action at {path}");
    let inputs: Vec<(String, String)> = step["with"]
        .as_hash()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            (k.as_str().unwrap().to_owned(), v.as_str().map(str::to_owned).unwrap_or_else(|| format!("{v:?}")))
        })
        .collect();
    let work = scratch("readme");
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let base = fixture_repo(&repo);
    let event = serde_json::json!({"pull_request": {"number": 3, "base": {"sha": base}}});
    let api = fake_api();
    let given: Vec<(&str, &str)> = inputs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let run = run_action(&repo, &work, &given, &event, &api);
    // `fail-on: breaking`: the fixture's changes are dangerous at worst.
    assert!(!run.failed, "{}", run.stderr);
    assert_eq!(run.outputs["dangerous"], "4");
    assert_eq!(api.comments.lock().unwrap().len(), 1);
}
