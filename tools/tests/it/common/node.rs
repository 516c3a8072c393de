//! `ts/dist/tools/cli-batch.js`: the TypeScript CLI's commands in one Node
//! process per test thread.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Output, Stdio};

use serde_json::Value;

/// `node ts/dist/tools/cli-batch.js`: `cli.js`'s commands run one after another
/// in one Node process (the same entry, `commands.run`, on the same arguments,
/// giving the same bytes and exit code), so that the hundreds of corpus and
/// mutation groups do not each start Node. One per test thread.
pub struct NodeBatch {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl NodeBatch {
    fn start(ts: &Path) -> NodeBatch {
        let mut child = Command::new("node")
            .arg(ts.join("dist/tools/cli-batch.js"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        NodeBatch { child, stdin, stdout }
    }

    fn run(&mut self, args: &[&str]) -> Output {
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{}", serde_json::to_string(args).unwrap()).expect("the batch process reads");
        stdin.flush().unwrap();
        let mut header = String::new();
        self.stdout.read_line(&mut header).unwrap();
        assert!(!header.is_empty(), "cli-batch.js ended: {:?}", self.child.try_wait());
        let h: Value = serde_json::from_str(&header).expect("a header line");
        let mut take = |k: &str| {
            let mut bytes = vec![0; h[k].as_u64().expect("a length") as usize];
            self.stdout.read_exact(&mut bytes).expect("the stream's bytes");
            bytes
        };
        let (stdout, stderr) = (take("stdout"), take("stderr"));
        let code = h["code"].as_i64().expect("an exit code") as i32;
        Output { status: ExitStatus::from_raw(code << 8), stdout, stderr }
    }
}

impl Drop for NodeBatch {
    fn drop(&mut self) {
        drop(self.stdin.take()); // end of input: the process ends
        let _ = self.child.wait();
    }
}

/// `node ts/dist/src/cli.js ARGS` (the package built), run by this thread's
/// [`NodeBatch`].
pub fn node_batched(args: &[&str]) -> Output {
    thread_local! { static BATCH: RefCell<Option<NodeBatch>> = const { RefCell::new(None) }; }
    let ts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ts");
    BATCH.with(|b| b.borrow_mut().get_or_insert_with(|| NodeBatch::start(&ts)).run(args))
}
