// Runs the Khronos glTF validator over glTF/GLB files and folders (searched
// recursively). Prints one summary line per file plus every error and warning;
// exits 1 when any file has an error, 2 on bad usage.
//
//   node validate.js ../../../assets
"use strict";

const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

const SEVERITY = ["error", "warning", "info", "hint"];

function collect(target, out) {
  if (fs.statSync(target).isDirectory()) {
    for (const name of fs.readdirSync(target).sort()) {
      collect(path.join(target, name), out);
    }
  } else if (/\.(glb|gltf)$/i.test(target)) {
    out.push(target);
  }
}

async function validate(file) {
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      fs.promises.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri))),
  });
  const counts = [report.issues.numErrors, report.issues.numWarnings, report.issues.numInfos, report.issues.numHints];
  console.log(`${file}: ${counts.map((n, i) => `${n} ${SEVERITY[i]}s`).join(", ")}`);
  for (const m of report.issues.messages.filter((m) => m.severity <= 1)) {
    console.log(`  ${SEVERITY[m.severity]} ${m.code} at ${m.pointer || m.offset || "-"}: ${m.message}`);
  }
  return report.issues.numErrors;
}

async function main() {
  const targets = process.argv.slice(2);
  if (targets.length === 0) {
    console.error("usage: node validate.js <file-or-folder>...");
    process.exit(2);
  }
  const files = [];
  for (const target of targets) {
    collect(target, files);
  }
  if (files.length === 0) {
    console.error(`no .glb or .gltf files under ${targets.join(" ")}`);
    process.exit(2);
  }
  let errors = 0;
  for (const file of files) {
    errors += await validate(file);
  }
  console.log(`${files.length} files, ${errors} errors`);
  process.exit(errors > 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
