#!/usr/bin/env node
// `node dist/src/cli.js check-messages|replay ...`: the commands of the Rust
// `acp-tools`, with the same arguments, output lines and exit codes
// (`commands.ts`), on this process's arguments and streams.

import { argv, exit, stderr, stdout } from "node:process";

import { run } from "./commands.js";

exit(run(argv.slice(2), { out: (text) => stdout.write(text), err: (text) => stderr.write(text) }));
