using ControllerLinq;

// A controller whose action builds its answer with a LINQ Select whose lambda calls a catalog client that uses the
// synchronous HttpClient.Send, two frames below the action, to a slow endpoint of the same service on loopback.
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.Services.AddControllers();
builder.Services.AddSingleton<CatalogClient>();
var app = builder.Build();
app.MapControllers();
// The slow catalog: an async wait, so only the caller's synchronous Send holds a thread.
app.MapGet("/catalog/{id:int}", async (int id) =>
{
    await Task.Delay(CatalogClient.CatalogDelayMs);
    return $"item {id}";
});
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"ControllerLinq ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();
