// Placeholder: the cuDNN and cuBLASLt backends are being written.
