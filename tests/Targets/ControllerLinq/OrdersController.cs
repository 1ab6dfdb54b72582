using Microsoft.AspNetCore.Mvc;

namespace ControllerLinq;

[ApiController]
[Route("orders")]
public sealed class OrdersController(CatalogClient catalog) : ControllerBase
{
    /// <summary>GET /orders/{id}: the order's two lines, each looked up in the catalog one after the other.</summary>
    [HttpGet("{id:int}")]
    public ActionResult<string[]> Get(int id) => Enumerable.Range(id, 2).Select(line => catalog.Lookup(line)).ToArray();
}
