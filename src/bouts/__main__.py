from bouts.cli.main import app

app()
