// The dependency the Storefront target calls: a pricing service that answers GET /quotes/{id} after 50 ms and serves at
// most 2 requests at a time (a bounded backend: the rest wait in its queue), all async.
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
var app = builder.Build();
var slots = new SemaphoreSlim(Quotes.Concurrency);
app.MapGet("/quotes/{id:int}", async (int id, CancellationToken cancellationToken) =>
{
    await slots.WaitAsync(cancellationToken);
    try
    {
        await Task.Delay(Quotes.ServiceMs, cancellationToken);
        return TypedResults.Ok(new Quote(id, 100 + (id % 17)));
    }
    finally
    {
        slots.Release();
    }
});
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"Pricing ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();

internal sealed record Quote(int Id, int PriceCents);

internal static class Quotes
{
    public const int Concurrency = 2;
    public const int ServiceMs = 50;
}
