"""Tests for the /{ResourceName} endpoints."""

import pytest
from httpx import ASGITransport, AsyncClient

# {{#if WithAuth}}
from {AppPackage}.auth import get_current_user
# {{/if}}
from {AppPackage}.main import app


@pytest.fixture
async def client():
    # {{#if WithAuth}}
    app.dependency_overrides[get_current_user] = lambda: {"sub": "test-user"}
    # {{/if}}
    async with AsyncClient(transport=ASGITransport(app=app), base_url="http://test") as client:
        yield client
    app.dependency_overrides.clear()


async def test_create_then_get(client: AsyncClient) -> None:
    created = await client.post("/{ResourceName}", json={"name": "first"})
    assert created.status_code == 201
    item_id = created.json()["id"]

    fetched = await client.get(f"/{ResourceName}/{item_id}")
    assert fetched.status_code == 200
    assert fetched.json()["name"] == "first"


async def test_unknown_id_is_404(client: AsyncClient) -> None:
    response = await client.get("/{ResourceName}/999999")
    assert response.status_code == 404


async def test_list_is_paginated(client: AsyncClient) -> None:
    response = await client.get("/{ResourceName}", params={"limit": 1})
    assert response.status_code == 200
    assert len(response.json()) <= 1
# {{#if WithAuth}}


async def test_requires_authentication() -> None:
    async with AsyncClient(transport=ASGITransport(app=app), base_url="http://test") as anonymous:
        response = await anonymous.get("/{ResourceName}")
    assert response.status_code == 401
# {{/if}}
