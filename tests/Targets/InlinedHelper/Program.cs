using Microsoft.AspNetCore.Http.HttpResults;

// A minimal-API shop whose order handler calls a one-line helper that blocks on an async call with .Result. The helper
// is small enough that the JIT inlines it into the handler's lambda: a sampled stack shows the lambda, not the helper.
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
var app = builder.Build();
app.MapGet("/orders/{id:int}", Results<Ok<Order>, ValidationProblem> (int id, ILogger<Program> logger) =>
{
    if (id <= 0)
    {
        return TypedResults.ValidationProblem(new Dictionary<string, string[]> { ["id"] = ["id must be positive."] });
    }
    var price = Blocking.DoBlocking(id);
    logger.LogInformation("Order {Id} priced at {Price}", id, price);
    return TypedResults.Ok(new Order(id, price));
});
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"InlinedHelper ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();

internal sealed record Order(int Id, decimal Price);

internal static class Blocking
{
    private const int PricingDelayMs = 200;

    public static decimal DoBlocking(int id) => DoAsync(id).Result;

    private static async Task<decimal> DoAsync(int id)
    {
        await Task.Delay(PricingDelayMs);
        return 10m + id % 7;
    }
}
