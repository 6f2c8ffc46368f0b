//! Every file of the committed fuzz corpus (`fuzz/corpus/<target>/`) through the same
//! checks the libFuzzer targets run (`sylva-fuzz-checks`), without libFuzzer: inputs
//! that once crashed stay fixed, and the loaders keep handling every shape of input
//! the fuzzer found. `fuzz/run.sh` grows and minimises the corpus.

use crate::common;

use std::fs;
use std::time::Instant;

use sylva_fuzz_checks::TARGETS;

#[test]
fn every_corpus_file_passes_its_targets_checks() {
    let corpus = common::repo().join("fuzz/corpus");
    for (target, check) in TARGETS {
        let folder = corpus.join(target);
        let mut files: Vec<_> = fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        assert!(
            files.len() >= 5,
            "{target}: the corpus holds only {} files",
            files.len()
        );
        let started = Instant::now();
        for file in &files {
            let bytes = fs::read(file).unwrap();
            let outcome = std::panic::catch_unwind(|| check(&bytes));
            assert!(outcome.is_ok(), "{target}: {} fails", file.display());
        }
        println!(
            "{target}: {} files in {} ms",
            files.len(),
            started.elapsed().as_millis()
        );
    }
}
