// A minimal API whose handler takes a lock and sleeps inside it: one request holds the lock, the others wait for it
// on their pool threads (Monitor.Enter).
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
var app = builder.Build();
app.MapGet("/inventory/{id:int}", (int id) => TypedResults.Ok(Inventory.Reserve(id)));
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"LockSleep ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();

internal static class Inventory
{
    private const int StockCheckMs = 50;
    private static readonly object Gate = new();
    private static int _reserved;

    public static string Reserve(int id)
    {
        lock (Gate)
        {
            // The stock check stands in for a slow synchronous call made while holding the lock.
            Thread.Sleep(StockCheckMs);
            _reserved++;
            return $"item {id}: reservation {_reserved}";
        }
    }
}
