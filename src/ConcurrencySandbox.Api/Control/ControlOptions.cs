using System.Net;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// The control listener. Section "Control" (env: Control__Port, Control__Host, Control__HandlerThreads,
/// Control__MaxConnections, Control__RequestSeconds, Control__ShutdownSeconds). Port 5081 by default, falling back to a free port (announced) when 5081 is taken
/// and no port was configured; 0 asks for a free port. Loopback only unless Host says otherwise.
/// </summary>
public sealed class ControlOptions
{
    public const string SectionName = "Control";

    public const int DefaultPort = 5081;

    public static readonly IntegerParameter PortSetting = new("port", 0, IPEndPoint.MaxPort, DefaultPort, "The control listener's TCP port; 0 picks a free one.");

    public static readonly IntegerParameter HandlerThreadsSetting = new("handlerThreads", 1, 16, 2, "Dedicated threads that run the control actions; one more thread does all the socket work.");

    public static readonly IntegerParameter MaxConnectionsSetting = new("maxConnections", 1, 1024, 256, "Open control connections at most; past it the least recently active idle one is closed for a new one.");

    public static readonly IntegerParameter RequestSecondsSetting = new("requestSeconds", 1, 60, 2, "How long a client may take to send its whole request (and again to take the answer) before the connection is closed.");

    public static readonly IntegerParameter ShutdownSecondsSetting = new("shutdownSeconds", 1, 60, 5, "After SIGTERM/SIGINT, how long the host may take to stop before the watchdog abandons in-flight requests and exits.");

    /// <summary>Null: the default port, or a free one when the default is taken.</summary>
    public long? Port { get; set; }

    /// <summary>The address the control listener binds to (an IP address).</summary>
    public string Host { get; set; } = IPAddress.Loopback.ToString();

    public long HandlerThreads { get; set; } = HandlerThreadsSetting.Default!.Value;

    public long MaxConnections { get; set; } = MaxConnectionsSetting.Default!.Value;

    public long RequestSeconds { get; set; } = RequestSecondsSetting.Default!.Value;

    public long ShutdownSeconds { get; set; } = ShutdownSecondsSetting.Default!.Value;
}

internal sealed class ControlOptionsValidator() : DeclaredSettingsValidator<ControlOptions>(ControlOptions.SectionName)
{
    protected override void Check(ControlOptions options, SettingsReader reader)
    {
        reader.Read(ControlOptions.PortSetting, options.Port);
        reader.Read(ControlOptions.HandlerThreadsSetting, options.HandlerThreads);
        reader.Read(ControlOptions.MaxConnectionsSetting, options.MaxConnections);
        reader.Read(ControlOptions.RequestSecondsSetting, options.RequestSeconds);
        reader.Read(ControlOptions.ShutdownSecondsSetting, options.ShutdownSeconds);
        if (!IPAddress.TryParse(options.Host, out _))
        {
            reader.Fail("host", $"{SettingName.Of(ControlOptions.SectionName, nameof(options.Host))} must be an IP address such as 127.0.0.1 or 0.0.0.0; it is '{options.Host}'.");
        }
    }
}
