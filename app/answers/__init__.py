"""What a reader asks for, answered once for the pages and the API: match a pasted error,
find records, read one record, each with its latest reproducer verdicts."""
