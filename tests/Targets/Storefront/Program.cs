using System.Security.Cryptography;

// A minimal API in front of two dependencies: the Pricing service over HTTP (a typed client from IHttpClientFactory,
// its address in Pricing__BaseAddress) and a stock database reached without HTTP (simulated: 2 connections, 50 ms a
// query). Three routes, three shapes of a break:
//   GET /quotes/{id}  waits on the pricing call only (the upstream);
//   GET /priced/{id}  scores the quote with a few milliseconds of SHA-256 rounds, then waits on the pricing call (CPU and the upstream);
//   GET /stock/{id}   waits on the stock database (a dependency that is not HTTP).
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.Services.AddHttpClient<PricingClient>(http => http.BaseAddress = new Uri(builder.Configuration["Pricing:BaseAddress"]
    ?? throw new InvalidOperationException("set Pricing__BaseAddress to the pricing service's address, e.g. http://127.0.0.1:5001/")));
builder.Services.AddSingleton<StockDatabase>();
var app = builder.Build();
app.MapGet("/quotes/{id:int}", async (int id, PricingClient pricing, CancellationToken cancellationToken) =>
    TypedResults.Ok(await pricing.QuoteAsync(id, cancellationToken)));
app.MapGet("/priced/{id:int}", async (int id, PricingClient pricing, CancellationToken cancellationToken) =>
    TypedResults.Ok(new Priced(RiskScore.Of(id), await pricing.QuoteAsync(id, cancellationToken))));
app.MapGet("/stock/{id:int}", async (int id, StockDatabase stock, CancellationToken cancellationToken) =>
    TypedResults.Ok(await stock.CountAsync(id, cancellationToken)));
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"Storefront ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();

internal sealed record Quote(int Id, int PriceCents);

internal sealed record Priced(int Risk, Quote Quote);

internal sealed class PricingClient(HttpClient http)
{
    public async Task<Quote> QuoteAsync(int id, CancellationToken cancellationToken) =>
        await http.GetFromJsonAsync<Quote>($"quotes/{id}", cancellationToken) ?? throw new InvalidOperationException($"no quote for {id}");
}

internal static class RiskScore
{
    // About 3 ms of a core, beside the pricing call's 50 ms: the cores of a busy machine and the pricing service's 2 slots both show at the break.
    private const int Rounds = 2400;

    public static int Of(int id)
    {
        var digest = BitConverter.GetBytes(id);
        for (var round = 0; round < Rounds; round++)
        {
            digest = SHA256.HashData(digest);
        }
        return digest[0];
    }
}

/// <summary>A database reached over its own protocol, not HTTP: a pool of 2 connections, 50 ms a query.</summary>
internal sealed class StockDatabase
{
    private readonly SemaphoreSlim _connections = new(2);

    public async Task<int> CountAsync(int id, CancellationToken cancellationToken)
    {
        await _connections.WaitAsync(cancellationToken);
        try
        {
            await Task.Delay(50, cancellationToken);
            return id % 50;
        }
        finally
        {
            _connections.Release();
        }
    }
}
