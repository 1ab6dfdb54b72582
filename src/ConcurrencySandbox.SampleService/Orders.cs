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
