// A minimal API whose latency is random and does not depend on the load (issue 37's bad input): each request awaits a
// log-normal delay (median 100 ms, sigma 0.8: p99 about 640 ms) drawn from a generator seeded by Seed (37 unless given,
// --Seed 5), holding no thread while it waits. A p99 from a few dozen such requests is noise, so the runner must say
// how many requests its baseline and any knee rest on.
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
var app = builder.Build();
var delays = new LogNormalDelays(app.Configuration.GetValue("Seed", 37));
app.MapGet("/quotes/{id:int}", async (int id, CancellationToken cancellationToken) =>
{
    var delayMs = delays.NextMs();
    await Task.Delay(TimeSpan.FromMilliseconds(delayMs), cancellationToken);
    return TypedResults.Ok($"quote {id} after {delayMs:0} ms");
});
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"RandomLatency ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();

/// <summary>Delays drawn from a log-normal distribution (Box-Muller on a seeded Random), one draw per request in arrival order.</summary>
internal sealed class LogNormalDelays(int seed)
{
    private const double MedianMs = 100;
    private const double Sigma = 0.8;
    private readonly Random _random = new(seed);
    private readonly Lock _gate = new();

    public double NextMs()
    {
        double u1, u2;
        lock (_gate)
        {
            u1 = 1 - _random.NextDouble();
            u2 = _random.NextDouble();
        }
        var normal = Math.Sqrt(-2 * Math.Log(u1)) * Math.Cos(2 * Math.PI * u2);
        return MedianMs * Math.Exp(Sigma * normal);
    }
}
