//! The quantir analyzer as a tantivy tokenizer, so tantivy indexes exactly the terms that
//! [`Analyzer`] gives a query.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

use crate::analysis::Analyzer;

/// The name the tokenizer is registered under in the index's tokenizer manager.
pub(crate) const TOKENIZER_NAME: &str = "quantir";

#[derive(Clone, Default)]
pub(crate) struct QuantirTokenizer {
    analyzer: Analyzer,
}

pub(crate) struct TermStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for QuantirTokenizer {
    type TokenStream<'a> = TermStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> TermStream {
        let mut tokens = Vec::new();
        self.analyzer.analyze(text, &mut |term| {
            // Offsets are not used (no positions, no highlighting from tantivy); positions count
            // terms so the field norm is the number of terms, as in Lucene.
            tokens.push(Token { offset_from: 0, offset_to: 0, position: tokens.len(), text: term.to_string(), position_length: 1 });
        });
        TermStream { tokens, next: 0 }
    }
}

impl TokenStream for TermStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}
