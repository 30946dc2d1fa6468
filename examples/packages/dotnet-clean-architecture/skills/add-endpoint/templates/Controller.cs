using Microsoft.AspNetCore.Mvc;
using {ServiceName}.Application.{EntityName}s;

namespace {ServiceName}.Api.Controllers;

[ApiController]
[Route("api/{EntityName}s")]
public sealed class {EntityName}Controller(I{EntityName}Repository repository) : ControllerBase
{
    [HttpGet("{id:guid}")]
    public async Task<IActionResult> Get(Guid id, CancellationToken ct) =>
        await repository.GetByIdAsync(id, ct) is { } found ? Ok(found) : NotFound();
}
