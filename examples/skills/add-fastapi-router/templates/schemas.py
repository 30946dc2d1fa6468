"""Request and response schemas for /{ResourceName}."""

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class {ModelName}Create(BaseModel):
    name: str = Field(min_length=1, max_length=200)


class {ModelName}Update(BaseModel):
    name: str | None = Field(default=None, min_length=1, max_length=200)


class {ModelName}Read(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    created_at: datetime
