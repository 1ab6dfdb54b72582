namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>The command line every API the tests start gets, in process or as a child, before the test's own settings (which win).</summary>
internal static class TestHostArguments
{
    /// <summary>
    /// The control plane gives a client 2 s from connecting to send its whole request. The tests' client lives in a
    /// process that runs other tests beside it on two shared cores, some of which starve its own ThreadPool on
    /// purpose (the in-process API's experiments), so the continuation that writes a request after the connect can
    /// wait longer than that, and the answer is a 408 (seen once in CI). Tests that check the deadline set their own.
    /// </summary>
    private const string BusyClientRequestSeconds = "Control:RequestSeconds=30";

    public static string[] For(IEnumerable<string> settings) =>
        ["--urls", "http://127.0.0.1:0", "--Control:Port=0", "--Logging:LogLevel:Default=Warning", "--" + BusyClientRequestSeconds, .. settings.Select(s => "--" + s)];
}
