//! The API's request parsing (`POST /api/search`, `/api/verify` and each `/api/batch` line): any
//! body is a request within the limits or a 400 naming why, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quantir::serve::{parse_search_request, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    match parse_search_request(data, &limits) {
        Ok(request) => {
            assert!(!request.claim.trim().is_empty());
            assert!(request.claim.chars().count() <= limits.claim_chars);
            assert!((1..=limits.max_k).contains(&request.settings.k));
        }
        Err(e) => assert_eq!(e.status, 400, "{e:?}"),
    }
});
