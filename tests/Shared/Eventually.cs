namespace ConcurrencySandbox.Testing;

/// <summary>
/// The tests' one polling helper: checks a condition every <c>interval</c> (50 ms unless told) for up to
/// <c>timeout</c> (30 s unless told), and fails naming what it waited for. Compiled into every test project.
/// </summary>
internal static class Eventually
{
    private static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan DefaultInterval = TimeSpan.FromMilliseconds(50);

    public static Task TrueAsync(Func<bool> condition, string what, TimeSpan? timeout = null, TimeSpan? interval = null) =>
        TrueAsync(() => Task.FromResult(condition()), what, timeout, interval);

    public static async Task TrueAsync(Func<Task<bool>> condition, string what, TimeSpan? timeout = null, TimeSpan? interval = null)
    {
        var pause = interval ?? DefaultInterval;
        var attempts = (int)Math.Ceiling((timeout ?? DefaultTimeout) / pause);
        for (var attempt = 0; attempt < attempts; attempt++)
        {
            if (await condition())
            {
                return;
            }

            await Task.Delay(pause);
        }

        Assert.True(await condition(), $"timed out waiting for {what}");
    }
}
