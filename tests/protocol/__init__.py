"""Tests of the wire format (protocol/): the message models and the JSON schema."""
