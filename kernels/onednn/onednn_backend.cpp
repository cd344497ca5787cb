// Placeholder: the oneDNN backend is being written.
