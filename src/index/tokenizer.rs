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

/// The terms of one text, kept in one buffer; [`TokenStream::advance`] copies the next term into
/// the one reused [`Token`], so a document costs two allocations, not one per term.
pub(crate) struct TermStream {
    terms: String,
    ends: Vec<usize>,
    next: usize,
    token: Token,
}

impl Tokenizer for QuantirTokenizer {
    type TokenStream<'a> = TermStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> TermStream {
        let mut terms = String::with_capacity(text.len());
        let mut ends = Vec::with_capacity(text.len() / 6);
        self.analyzer.analyze(text, &mut |term| {
            terms.push_str(term);
            ends.push(terms.len());
        });
        TermStream { terms, ends, next: 0, token: Token::default() }
    }
}

impl TokenStream for TermStream {
    fn advance(&mut self) -> bool {
        let Some(&end) = self.ends.get(self.next) else { return false };
        let start = if self.next == 0 { 0 } else { self.ends[self.next - 1] };
        self.token.text.clear();
        self.token.text.push_str(&self.terms[start..end]);
        // Offsets are not used (no positions, no highlighting from tantivy); positions count
        // terms so the field norm is the number of terms, as in Lucene.
        self.token.position = self.next;
        self.next += 1;
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}
