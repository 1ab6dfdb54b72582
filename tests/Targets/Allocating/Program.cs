// A minimal API whose handler allocates: it renders a report by concatenating strings in a loop, each pass copying the
// whole text so far into a new string (a few MB of garbage per request, most of it on the large object heap). Its
// pool threads run and wait on nothing; the GC's collections of that garbage are what break it.
var builder = WebApplication.CreateBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
var app = builder.Build();
app.MapGet("/report/{id:int}", (int id) => TypedResults.Ok(new Report(id, ReportBuilder.Render(id).Length)));
app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine($"Allocating ready: {string.Join(' ', app.Urls)} pid {Environment.ProcessId}"));
app.Run();

internal sealed record Report(int Id, int Length);

internal static class ReportBuilder
{
    // 300 lines of 48 characters: the text reaches about 29 KB, and its copies sum to about 4 MB per request.
    private const int Lines = 300;

    public static string Render(int id)
    {
        var text = "";
        for (var line = 0; line < Lines; line++)
        {
            text += $"order {id,8} line {line,6}: {line * 31 % 977,8} units\n";
        }
        return text;
    }
}
