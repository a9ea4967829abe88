#!/usr/bin/env node
// `switchyard connectors` and `switchyard execute ...`: the library commands (credentials you supply).
import { libraryProgram, runProgram } from '../dist/runtime/cli.js';

await runProgram(libraryProgram());
