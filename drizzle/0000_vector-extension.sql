-- pgvector must exist before any table uses the vector type; IF NOT EXISTS keeps re-runs and
-- databases where an administrator installed it already safe.
CREATE EXTENSION IF NOT EXISTS vector;
