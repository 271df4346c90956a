"""lorebook-postgres: an organisation store on PostgreSQL."""
