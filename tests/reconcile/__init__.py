"""Reading the rails' statement files: camt.053/054, MT940 and CSV."""
