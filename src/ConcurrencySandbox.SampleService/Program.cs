using ConcurrencySandbox.SampleService;

// A small service with three classic mistakes for the runner's observer to find: a blocking .Result on an async call
// (/orders), a synchronous client call that sleeps its thread (/reports), and two such calls asked at once, one queued
// to the pool and waited for with an event (/quotes).
var builder = WebApplication.CreateBuilder(args);
var minWorkerThreads = builder.Configuration.GetValue<int?>("ThreadPool:MinWorkerThreads");
if (minWorkerThreads is { } minimum)
{
    ThreadPool.GetMinThreads(out _, out var io);
    if (!ThreadPool.SetMinThreads(minimum, io))
    {
        throw new InvalidOperationException($"ThreadPool:MinWorkerThreads (env ThreadPool__MinWorkerThreads) = {minimum} was refused by the runtime; use 1..{short.MaxValue}");
    }
}
builder.Logging.SetMinimumLevel(LogLevel.Warning);
var app = builder.Build();
app.MapGet("/healthz", () => TypedResults.Ok("ok"));
app.MapGet("/orders/{id:int}", Orders.Get);
app.MapGet("/reports/{id:int}", Orders.Report);
app.MapGet("/quotes/{id:int}", Orders.Quote);
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"SampleService ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();
