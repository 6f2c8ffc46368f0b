#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sylva_fuzz_checks::catalog(data));
