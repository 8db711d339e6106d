from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def media(tmp_path, settings):
    """Every test stores its files in a fresh folder through the default storage."""
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = root
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage",
                    "OPTIONS": {"location": root}},
    }
    return root
