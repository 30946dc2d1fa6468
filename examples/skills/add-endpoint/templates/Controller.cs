using Microsoft.AspNetCore.Mvc;
using {ServiceName}.Api.Contracts;
using {ServiceName}.Domain;

namespace {ServiceName}.Api.Controllers;

// Program.cs: builder.Services.AddControllers(); ... app.MapControllers();
[ApiController]
[Route("api/[controller]")]
public sealed class {EntityName}Controller : ControllerBase
{
    private readonly I{EntityName}Repository _repository;

    public {EntityName}Controller(I{EntityName}Repository repository) => _repository = repository;

    [HttpGet]
    public async Task<IReadOnlyList<{EntityName}Response>> List(CancellationToken ct) =>
        (await _repository.ListAsync(ct)).Select({EntityName}Response.From).ToList();

    [HttpGet("{id:guid}")]
    public async Task<ActionResult<{EntityName}Response>> Get(Guid id, CancellationToken ct)
    {
        var entity = await _repository.GetByIdAsync(id, ct);
        return entity is null ? NotFound() : {EntityName}Response.From(entity);
    }

    [HttpPost]
    public async Task<ActionResult<{EntityName}Response>> Create({EntityName}Request request, CancellationToken ct)
    {
        var entity = new {EntityName} { Id = Guid.NewGuid(), Name = request.Name, CreatedAt = DateTimeOffset.UtcNow };
        await _repository.AddAsync(entity, ct);
        return CreatedAtAction(nameof(Get), new { id = entity.Id }, {EntityName}Response.From(entity));
    }

    [HttpPut("{id:guid}")]
    public async Task<IActionResult> Update(Guid id, {EntityName}Request request, CancellationToken ct)
    {
        var entity = await _repository.GetByIdAsync(id, ct);
        if (entity is null)
        {
            return NotFound();
        }

        entity.Name = request.Name;
        await _repository.UpdateAsync(entity, ct);
        return NoContent();
    }

    [HttpDelete("{id:guid}")]
    public async Task<IActionResult> Delete(Guid id, CancellationToken ct)
    {
        var entity = await _repository.GetByIdAsync(id, ct);
        if (entity is null)
        {
            return NotFound();
        }

        await _repository.DeleteAsync(entity, ct);
        return NoContent();
    }
}
