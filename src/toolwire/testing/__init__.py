"""Test helpers shipped to adapter authors: request capture and the conformance suite."""
