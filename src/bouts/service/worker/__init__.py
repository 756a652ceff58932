"""Distributed scoring: the Celery app (``celery_app.create_celery``) that ``bouts worker`` runs."""
