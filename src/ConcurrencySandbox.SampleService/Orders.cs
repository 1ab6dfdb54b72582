using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.SampleService;

/// <summary>An order's price from a slow pricing backend (a <c>delayMs</c> wait standing in for the remote call).</summary>
public sealed record Order(int Id, decimal Price);

public static class Orders
{
    public const int MaxDelayMs = 10_000;

    /// <summary>
    /// GET /orders/{id}?delayMs=100: the handler is synchronous and waits for the async pricing call with
    /// <c>.Result</c>, holding a pool thread for the whole delay, which starves the pool under concurrent load.
    /// </summary>
    public static Results<Ok<Order>, ValidationProblem> Get(int id, int? delayMs)
    {
        if (Invalid(delayMs, out var delay) is { } problem)
        {
            return problem;
        }
        var price = PriceAsync(id, delay).Result;
        return TypedResults.Ok(new Order(id, price));
    }

    /// <summary>
    /// GET /reports/{id}?delayMs=100: a legacy synchronous client that sleeps its thread for the delay. Unlike a wait on
    /// a Task, the runtime does not recognise this as blocking, so the pool grows only by its starvation detection.
    /// </summary>
    public static Results<Ok<Order>, ValidationProblem> Report(int id, int? delayMs)
    {
        if (Invalid(delayMs, out var delay) is { } problem)
        {
            return problem;
        }
        Thread.Sleep(delay);
        return TypedResults.Ok(new Order(id, 10m + id % 7));
    }

    /// <summary>
    /// GET /quotes/{id}?delayMs=100: the cheaper of two suppliers' prices, asked at once the legacy way: the second
    /// supplier's synchronous client call (a thread sleep for the delay) queued to the pool, the first's made on the
    /// request's own thread, which then waits on an event for the second. A request holds two pool threads, and neither
    /// wait tells the pool it blocks (a wait on a Task would): the runtime adds a thread only when no work item has started
    /// for 500 ms (every thread a request waiting for its queued call), and otherwise by hill climbing, so the threads the
    /// load needs grow twice as fast as its users.
    /// </summary>
    public static Results<Ok<Order>, ValidationProblem> Quote(int id, int? delayMs)
    {
        if (Invalid(delayMs, out var delay) is { } problem)
        {
            return problem;
        }
        var second = 0m;
        using var answered = new ManualResetEventSlim();
        ThreadPool.QueueUserWorkItem(_ =>
        {
            second = SupplierPrice(id + 1, delay);
            answered.Set();
        });
        var first = SupplierPrice(id, delay);
        answered.Wait();
        return TypedResults.Ok(new Order(id, Math.Min(first, second)));
    }

    /// <summary>A supplier's legacy synchronous client: it sleeps its thread for the call.</summary>
    private static decimal SupplierPrice(int id, int delayMs)
    {
        Thread.Sleep(delayMs);
        return 10m + id % 7;
    }

    private static ValidationProblem? Invalid(int? delayMs, out int delay)
    {
        delay = delayMs ?? 100;
        return delay is < 0 or > MaxDelayMs
            ? TypedResults.ValidationProblem(new Dictionary<string, string[]> { ["delayMs"] = [$"delayMs must be between 0 and {MaxDelayMs}."] })
            : null;
    }

    private static async Task<decimal> PriceAsync(int id, int delayMs)
    {
        await Task.Delay(delayMs);
        return 10m + id % 7;
    }
}
