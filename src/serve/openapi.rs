//! `GET /api/openapi.json`: the API described in OpenAPI 3.0, as this server serves it: the
//! retrievers it offers, and `/api/verify` only when it has a verifier.

use std::sync::Arc;

use axum::extract::State;
use axum::Json;

use super::api::DEFAULT_K;
use super::AppState;
use crate::engine::RunSettings;
use crate::fuse::{Method, Norm};
use crate::retrieve::Retriever;

pub(super) async fn openapi(State(state): State<Arc<AppState>>) -> Json<serde_json::Value> {
    Json(document(state.retrievers(), state.verifier.is_some()))
}

/// A closed set's names as the CLI, Python and the API write them, and null (the default).
fn names_or_null<T: clap::ValueEnum + PartialEq>(leave_out: &[T]) -> Vec<serde_json::Value> {
    let mut names: Vec<serde_json::Value> = T::value_variants().iter().filter(|v| !leave_out.contains(v)).filter_map(|v| v.to_possible_value()).map(|p| p.get_name().into()).collect();
    names.push(serde_json::Value::Null);
    names
}

fn document(retrievers: &[Retriever], verifies: bool) -> serde_json::Value {
    // A request's settings default to RunSettings::DEFAULT's, k to the API's own; every setting
    // takes null for its default.
    let mut retrievers: Vec<serde_json::Value> = retrievers.iter().map(|r| serde_json::json!(r)).collect();
    retrievers.push(serde_json::Value::Null);
    let defaults = serde_json::to_value(RunSettings { k: DEFAULT_K, ..RunSettings::DEFAULT }).expect("settings serialise");
    // The API takes no weights, so no wsum.
    let fusions = names_or_null(&[Method::Wsum]);
    let error = serde_json::json!({"description": "bad request: {\"error\": {\"field\", \"message\"}}", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    let failure = |what: &str| serde_json::json!({"description": what, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    // Every POST: a missing or other Content-Type, the per-request deadline, a full server.
    let unsupported = failure("the body is not of the Content-Type named");
    let timeout = failure("the request ran past the server's per-request deadline");
    let server = failure("the server cannot answer from its index (damaged, unreadable): its state, not the request's");
    let busy = serde_json::json!({"description": "the server is answering as many requests as it takes at once (or its OpenSearch cluster is unreachable); retry after the seconds in Retry-After", "headers": {"Retry-After": {"schema": {"type": "integer"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    let mut doc = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "quantir", "version": env!("CARGO_PKG_VERSION"), "description": "Evidence retrieval for numerical claims, with an exact publication-date cutoff. Limits: search body 64 KiB, batch body 8 MiB and 10,000 lines, claim 2,000 characters, k and depth 1..1000."},
        "paths": {
            "/api/search": {"post": {
                "summary": "Evidence for one claim",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SearchRequest"}}}},
                "responses": {"200": {"description": "sub-queries and hits", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SearchResponse"}}}}, "400": error, "408": timeout, "413": error, "415": unsupported, "422": error, "500": server, "503": busy}
            }},
            "/api/verify": {"post": {
                "summary": "Verdict (True / False / Conflicting, or Not Enough Info when the server abstains) for one claim from its top hits (the server's --verify-top, 3 by default; k defaults to it); 404 when the server has no verifier",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SearchRequest"}}}},
                "responses": {"200": {"description": "label, confidence in number and words, the verdict withheld and why, the hits with their comparisons, sub-queries", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/VerifyResponse"}}}}, "400": error, "404": error, "408": timeout, "413": error, "415": unsupported, "422": error, "500": server, "503": busy}
            }},
            "/api/batch": {"post": {
                "summary": "JSONL of SearchRequest in; JSONL out, one line per input line ({\"line\", ...SearchResponse} or {\"line\", \"error\"}), streamed",
                "requestBody": {"required": true, "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
                "responses": {"200": {"description": "one JSON object a line", "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}, "400": error, "408": timeout, "413": error, "415": unsupported, "503": busy}
            }},
            "/api/health": {"get": {"summary": "Liveness and the index served", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
            "/api/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3", "content": {"application/json": {"schema": {"type": "object"}}}}}}}
        },
        "components": {"schemas": {
            "SearchRequest": {"type": "object", "required": ["claim"], "additionalProperties": false,
              // combmax-norm, the default fusion, normalises by min-max itself: another norm needs another fusion.
              "anyOf": [
                {"properties": {"norm": {"enum": ["min-max", null]}}},
                {"required": ["fusion"], "properties": {"fusion": {"enum": ["combsum", "combmax", "combmnz", "rrf"]}}}
              ],
              "properties": {
                "id": {"type": "string", "nullable": true, "description": "echoed back (batch)"},
                "claim": {"type": "string", "minLength": 1, "maxLength": 2000, "pattern": "\\S", "description": "the claim's text: not only spaces"},
                "date": {"type": "string", "nullable": true, "pattern": "^[1-9][0-9]{3}(-(0[1-9]|1[0-2])(-(0[1-9]|1[0-9]|2[0-8]))?)?$", "description": "evidence published strictly before this date, years 1000 to 9999: 2021-03-21, 2021-03 or 2021 (the pattern, which leaves out the 29th to the 31st only to stay within every month), and also forms like Mar 21, 2021, March 2021, 2021/03/21 and ISO datetimes"},
                "plan": {"type": "string", "nullable": true, "enum": ["claim-only", "numeric", "iterative", null], "default": defaults["plan"]},
                "retriever": {"type": "string", "nullable": true, "enum": retrievers, "default": defaults["retriever"], "description": "dense and hybrid are offered by a server of an index built with --dense (see /api/health)"},
                "fusion": {"type": "string", "nullable": true, "enum": fusions, "default": defaults["fusion"]},
                "norm": {"type": "string", "nullable": true, "enum": names_or_null::<Norm>(&[]), "description": "the sub-query lists' normalisation before fusion; combmax-norm (the default fusion) takes only min-max"},
                "hybrid_fusion": {"type": "string", "nullable": true, "enum": fusions, "default": defaults["hybrid_fusion"], "description": "how a sub-query's BM25 and dense lists combine under hybrid retrieval (after z-scoring; combmax-norm min-max, rrf ranks)"},
                "k": {"type": "integer", "nullable": true, "minimum": 1, "maximum": 1000, "default": defaults["k"]},
                "depth": {"type": "integer", "nullable": true, "minimum": 1, "maximum": 1000, "default": defaults["depth"]},
                "undated": {"type": "string", "nullable": true, "enum": names_or_null::<crate::retrieve::UndatedPolicy>(&[]), "default": defaults["undated"]}
            }},
            "SubQuery": {"type": "object", "properties": {"text": {"type": "string"}, "origin": {"type": "string", "enum": ["claim", "file", "numeric", "llm", "callable", "evidence"]}, "round": {"type": "integer", "description": "the planning round that asked it; absent for round 1 (an iterative planner's later rounds are written from the evidence found before them)"}}},
            "Highlight": {"type": "object", "description": "a number of the claim found in the hit's text; offsets in characters", "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}, "value": {"type": "string"}}},
            "Hit": {"type": "object", "properties": {
                "id": {"type": "string"}, "score": {"type": "number"}, "date": {"type": "string", "nullable": true}, "title": {"type": "string"},
                "text": {"type": "string"}, "url": {"type": "string", "nullable": true},
                "from_subqueries": {"type": "array", "items": {"type": "integer"}},
                "highlights": {"type": "array", "items": {"$ref": "#/components/schemas/Highlight"}},
                "comparisons": {"type": "array", "items": {"$ref": "#/components/schemas/Comparison"}},
                "stance": {"$ref": "#/components/schemas/Stance"}
            }},
            "Stance": {"type": "object", "description": "the hit's stance on the claim, when a stance or ONNX verifier (--verifier stance:DIR, onnx:DIR) read it (POST /api/verify)", "properties": {
                "stance": {"type": "string", "enum": ["supports", "refutes", "does_not_bear"]}, "probability": {"type": "number", "description": "the stance's probability"},
                "supports": {"type": "number"}, "refutes": {"type": "number"}, "does_not_bear": {"type": "number"}
            }},
            "Quantity": {"type": "object", "properties": {
                "text": {"type": "string"}, "start": {"type": "integer"}, "end": {"type": "integer"}, "value": {"type": "number", "description": "scaled: 1.5 billion is 1.5e9; a range's low end"},
                "high": {"type": "number", "description": "a range's high end"},
                "unit": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["percent", "percentage_points", "currency", "rate", "share", "year", "count"]}, "currency": {"type": "string", "enum": ["dollar", "euro", "pound", "yen", "rupee"]}, "per": {"type": "number"}, "of": {"type": "number"}}},
                "approx": {"type": "string", "enum": ["exact", "about", "more_than", "at_least", "less_than", "at_most"]},
                "year": {"type": "integer"}, "noun": {"type": "string"}
            }},
            "Comparison": {"type": "object", "description": "a quantity of the claim beside its best match in the hit (offsets into the hit's title and text as the verifier reads them)", "properties": {
                "passage": {"type": "integer", "description": "the hit's position"}, "claim": {"$ref": "#/components/schemas/Quantity"}, "evidence": {"$ref": "#/components/schemas/Quantity"},
                "relative_difference": {"type": "number", "nullable": true, "description": "(evidence - claim) / |claim|"}, "agreement": {"type": "string", "enum": ["agrees", "disagrees"], "description": "whether the evidence's value is within what the claim states: its range, its approximation (about: 10% either way; more than, at least, less than, at most: that side) or the precision it is written to"}, "summary": {"type": "string"}
            }},
            "SearchResponse": {"type": "object", "properties": {
                "id": {"type": "string"}, "generation": {"type": "integer", "description": "the index generation that answered (an embedded index; it moves forward when the index is rebuilt)"},
                "subqueries": {"type": "array", "items": {"$ref": "#/components/schemas/SubQuery"}},
                "hits": {"type": "array", "items": {"$ref": "#/components/schemas/Hit"}}, "took_ms": {"type": "number"}
            }},
            "VerifyResponse": {"type": "object", "properties": {
                "id": {"type": "string"}, "generation": {"type": "integer", "description": "the index generation that answered"},
                "label": {"type": "string", "enum": ["True", "False", "Conflicting", "Not Enough Info"]}, "confidence": {"type": "number", "description": "the verdict's probability (the withheld verdict's when withheld)"},
                "confidence_level": {"type": "string", "enum": ["low", "moderate", "high"], "description": "below 0.5, below 0.75, from 0.75"},
                "verdict": {"type": "string", "enum": ["True", "False", "Conflicting"], "description": "the verifier's verdict, withheld or given (when the server abstains)"},
                "relevance": {"type": "number", "description": "probability that the evidence read bears on the claim (when the server abstains)"},
                "abstained": {"type": "string", "enum": ["evidence", "confidence"], "description": "why the verdict was withheld"},
                "read": {"type": "integer", "description": "hits the verifier read, from the first"},
                "evidence": {"type": "array", "items": {"$ref": "#/components/schemas/Hit"}},
                "subqueries": {"type": "array", "items": {"$ref": "#/components/schemas/SubQuery"}}, "took_ms": {"type": "number"}
            }},
            "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {"field": {"type": "string", "nullable": true}, "message": {"type": "string"}}}}}
        }}
    });
    if !verifies {
        if let Some(paths) = doc["paths"].as_object_mut() {
            paths.remove("/api/verify");
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::api::SERVED_SETTINGS;

    #[test]
    fn a_search_request_is_its_fields_and_the_served_settings() {
        let doc = document(&[Retriever::Bm25], false);
        let properties = doc["components"]["schemas"]["SearchRequest"]["properties"].as_object().unwrap();
        let mut documented: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut served: Vec<&str> = ["id", "claim", "date"].into_iter().chain(SERVED_SETTINGS).collect();
        documented.sort_unstable();
        served.sort_unstable();
        assert_eq!(documented, served);
        assert!(SERVED_SETTINGS.iter().all(|name| RunSettings::NAMES.contains(name)));
        assert_eq!((properties["fusion"]["default"].as_str(), properties["depth"]["default"].as_u64(), properties["k"]["default"].as_u64()), (Some("combmax-norm"), Some(100), Some(10)));
        assert!(!properties["fusion"]["enum"].as_array().unwrap().contains(&"wsum".into()));
    }
}
