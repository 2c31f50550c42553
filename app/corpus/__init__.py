"""The built-in corpus: every pinned release of sglang and its dependencies, drafted,
merged into one record per raise site, with per-release locations and code facts."""
