#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sylva_fuzz_checks::export_round_trip(data));
