"""Text to vectors: the encoders, the chunker sized for them, the cross-encoder."""
