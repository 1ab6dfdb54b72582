namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>Waits, polling every 50 ms for up to 30 s, until a condition holds, and fails naming what it waited for.</summary>
internal static class Eventually
{
    public static async Task TrueAsync(Func<bool> condition, string what)
    {
        for (var attempt = 0; attempt < 600 && !condition(); attempt++)
        {
            await Task.Delay(50);
        }

        Assert.True(condition(), $"timed out waiting for {what}");
    }
}
