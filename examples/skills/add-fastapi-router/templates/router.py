"""HTTP endpoints for /{ResourceName}."""

from fastapi import APIRouter, Depends, HTTPException, Query, Response, status
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

# {{#if WithAuth}}
from {AppPackage}.auth import get_current_user
# {{/if}}
from {AppPackage}.db import get_session
from {AppPackage}.models import {ModelName}
from {AppPackage}.schemas.{ResourceName} import {ModelName}Create, {ModelName}Read, {ModelName}Update

DEFAULT_PAGE_SIZE = {PageSize}
MAX_PAGE_SIZE = max(DEFAULT_PAGE_SIZE, 500)

router = APIRouter(
    prefix="/{ResourceName}",
    tags=["{ResourceName}"],
    # {{#if WithAuth}}
    dependencies=[Depends(get_current_user)],
    # {{/if}}
)


async def _get_or_404(session: AsyncSession, item_id: int) -> {ModelName}:
    item = await session.get({ModelName}, item_id)
    if item is None:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail=f"{ModelName} {item_id} not found")
    return item


@router.get("", response_model=list[{ModelName}Read])
async def list_items(
    limit: int = Query(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
    offset: int = Query(default=0, ge=0),
    session: AsyncSession = Depends(get_session),
) -> list[{ModelName}]:
    result = await session.scalars(select({ModelName}).order_by({ModelName}.id).limit(limit).offset(offset))
    return list(result)


@router.get("/{item_id}", response_model={ModelName}Read)
async def get_item(item_id: int, session: AsyncSession = Depends(get_session)) -> {ModelName}:
    return await _get_or_404(session, item_id)


@router.post("", response_model={ModelName}Read, status_code=status.HTTP_201_CREATED)
async def create_item(payload: {ModelName}Create, session: AsyncSession = Depends(get_session)) -> {ModelName}:
    item = {ModelName}(**payload.model_dump())
    session.add(item)
    await session.commit()
    await session.refresh(item)
    return item


@router.patch("/{item_id}", response_model={ModelName}Read)
async def update_item(
    item_id: int, payload: {ModelName}Update, session: AsyncSession = Depends(get_session)
) -> {ModelName}:
    item = await _get_or_404(session, item_id)
    for field, value in payload.model_dump(exclude_unset=True).items():
        setattr(item, field, value)
    await session.commit()
    await session.refresh(item)
    return item


@router.delete("/{item_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_item(item_id: int, session: AsyncSession = Depends(get_session)) -> Response:
    item = await _get_or_404(session, item_id)
    await session.delete(item)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
