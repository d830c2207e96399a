"""Provider adapters, installed as `toolwire.adapters` and registered through entry points."""
