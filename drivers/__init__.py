"""Hardware drivers: card shoes and cameras, turning raw readings into table inputs."""
