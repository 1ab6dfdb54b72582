using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Api;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Deploy.Tests.Support;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.Deploy.Tests;

public class ComposeTests
{
    private const string BindVariable = "SANDBOX_BIND";

    private readonly ComposeFile _compose = new();

    [Fact]
    public void ApiRunsThreeTimesWithQuotasOfOneTwoAndFourCpus()
    {
        Assert.Equal(new[] { 1.0, 2.0, 4.0 }, _compose.Apis.Select(api => ComposeFile.Cpus(api.Value)));
        Assert.All(_compose.Apis, api => Assert.Null(api.Value.At("cpuset")));
    }

    [Fact]
    public void ProcessorCountIsLeftToTheRuntimeToDeriveFromTheQuota() =>
        Assert.All(_compose.Apis, api => Assert.DoesNotContain("DOTNET_PROCESSOR_COUNT", ComposeFile.Environment(api.Value).Keys));

    [Fact]
    public void ApisAndStubListenOn8080InsideAndEachHasItsOwnHostPort()
    {
        Assert.All(_compose.Apis.Append(_compose.Stub), service =>
        {
            Assert.Contains("8080", PublishedPorts(service).Values);
            Assert.Equal("8080", ComposeFile.Environment(service.Value)["ASPNETCORE_HTTP_PORTS"]);
        });
        var hostPorts = _compose.Services.SelectMany(service => PublishedPorts(service).Keys).ToList();
        Assert.Equal(hostPorts.Count, hostPorts.Distinct().Count());
    }

    [Fact]
    public void EachApiPublishesTheControlPlanesDefaultPortAndLeavesItsPortUnset()
    {
        var controlPort = ControlOptions.DefaultPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        Assert.All(_compose.Apis, api =>
        {
            Assert.Equal(new[] { "8080", controlPort }.Order(StringComparer.Ordinal), PublishedPorts(api).Values.Order(StringComparer.Ordinal));
            Assert.DoesNotContain($"{ControlOptions.SectionName}__{nameof(ControlOptions.Port)}", ComposeFile.Environment(api.Value).Keys);
        });
        Assert.DoesNotContain(controlPort, PublishedPorts(_compose.Stub).Values);
    }

    [Fact]
    public void ApisAndStubAreHealthCheckedOnHealthzAtPort8080()
    {
        Assert.All(_compose.Apis.Append(_compose.Stub), service =>
        {
            var command = HealthcheckCommand(service.Value);
            Assert.Contains("/dev/tcp/127.0.0.1/8080", command, StringComparison.Ordinal);
            Assert.Contains("GET /healthz ", command, StringComparison.Ordinal);
        });
    }

    [FactWhenToolExists("bash")]
    [Trait("Category", "Slow")]
    public async Task HealthcheckPassesWhenHealthzAnswers200AndFailsOtherwise()
    {
        await using var api = SandboxApp.Build(["--urls", "http://127.0.0.1:0"]);
        await api.StartAsync();
        var port = new Uri(api.Urls.Single()).Port.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var command = HealthcheckCommand(_compose.Apis[0].Value).Replace("$$", "$", StringComparison.Ordinal).Replace("127.0.0.1/8080", $"127.0.0.1/{port}", StringComparison.Ordinal);

        Assert.Equal(0, ExternalTool.Run("bash", "-c", command).ExitCode);
        Assert.NotEqual(0, ExternalTool.Run("bash", "-c", command.Replace("/healthz ", "/no-such-path ", StringComparison.Ordinal)).ExitCode);
    }

    [Fact]
    public void ApisCallTheStubServiceThroughTheThirdPartyBaseUrl()
    {
        Assert.All(_compose.Apis, api =>
        {
            Assert.Equal($"http://{_compose.Stub.Key}:8080", ComposeFile.Environment(api.Value)["ThirdParty__BaseUrl"]);
            Assert.Equal("service_healthy", api.Value.Text("depends_on", _compose.Stub.Key, "condition"));
        });
    }

    [Fact]
    public void LoadRunnerTargetsEachApiInTurnAndWaitsOnlyForTheApisEveryProfileStarts()
    {
        var loadRunner = _compose.LoadRunner.Value;
        var targets = ComposeFile.Environment(loadRunner)["TARGETS"] is { } set ? ComposeFile.WithDefaults(set).Split(' ', StringSplitOptions.RemoveEmptyEntries) : null;
        Assert.Equal(_compose.Apis.Select(api => $"http://{api.Key}:8080"), targets);
        Assert.All(_compose.Apis, api => Assert.Equal(
            api.Value.At("profiles") is null ? "service_healthy" : null,
            loadRunner.Text("depends_on", api.Key, "condition")));
    }

    [Fact]
    public void ApisNeedingMoreThanTwoCpusAreOptInThroughAProfile()
    {
        Assert.All(_compose.Apis, api => Assert.Equal(
            ComposeFile.Cpus(api.Value) > 2 ? new object?[] { $"cpu{ComposeFile.Cpus(api.Value)}" } : [],
            api.Value.List("profiles")));
        Assert.Contains(_compose.Apis, api => api.Value.At("profiles") is null);
    }

    [Fact]
    public void HealthchecksUseNoKeyThatNeedsDockerEngine25()
    {
        Assert.All(_compose.Services, service => Assert.Null(service.Value.At("healthcheck", "start_interval")));
        Assert.DoesNotContain("start_interval:", Repository.Read(ComposeFile.Path), StringComparison.Ordinal);
    }

    [Fact]
    public void EveryImageIsBuiltFromTheOfficialBaseImagesUnlessTheShellNamesOthers()
    {
        var dockerfile = Dockerfile.Load();
        Assert.All(_compose.Services.Where(service => service.Value.At("build") is not null), service =>
        {
            var arguments = service.Value.Entries("build", "args").ToDictionary(entry => entry.Key, entry => ComposeFile.WithDefaults(Assert.IsType<string>(entry.Value)));
            Assert.Equal(dockerfile.GlobalArguments.OrderBy(argument => argument.Key), arguments.OrderBy(argument => argument.Key));
        });
    }

    [TheoryWhenToolExists("docker-compose")]
    [Trait("Category", "Slow")]
    [InlineData("deploy/compose.yaml")]
    [InlineData("deploy/compose.yaml", "deploy/compose.cpuset.yaml")]
    [InlineData("deploy/compose.yaml", "deploy/compose.watch.yaml")]
    public void ComposeV1ConfigAcceptsTheFilesWithEveryProfile(params string[] files)
    {
        var arguments = files.SelectMany(file => new[] { "-f", file }).Concat(["--profile", "cpu4", "--profile", "monitoring", "config", "--quiet"]).ToArray();
        var (exitCode, _, error) = ExternalTool.Run("docker-compose", arguments);
        Assert.True(exitCode == 0, error);
    }

    /// <summary>
    /// A target whose service is not running is skipped with one line; one that names its own experiments after "=" is
    /// the URL alone wherever the script names it.
    /// </summary>
    [FactWhenToolExists("getent")]
    [Trait("Category", "Slow")]
    public void LoadRunnerScriptSkipsATargetWhoseServiceIsNotRunningWithOneLineAndReadsItsOwnExperimentsAfterItsUrl()
    {
        var (exitCode, output, _) = ExternalTool.RunWith(
            new Dictionary<string, string> { ["TARGETS"] = "http://api-absent.invalid:8080=fanout,sleep http://api-gone.invalid:8081", ["EXPERIMENTS"] = "compute", ["PROFILE"] = "smoke", ["REPORTS_DIR"] = "/nonexistent" },
            "bash", "deploy/loadrunner/run-each-target.sh");
        Assert.Equal(0, exitCode);
        Assert.Equal(
            [
                "== http://api-absent.invalid:8080 skipped: no service api-absent.invalid is running (opt-in profile not enabled)",
                "== http://api-gone.invalid:8081 skipped: no service api-gone.invalid is running (opt-in profile not enabled)",
            ],
            output.Trim().Split('\n'));
    }

    [Fact]
    public void LoadRunnerScriptIsMountedFromTheRepositoryAndRunAsNonRoot()
    {
        var loadRunner = _compose.LoadRunner.Value;
        var script = loadRunner.List("entrypoint").OfType<string>().Last();
        var mount = Assert.Single(loadRunner.List("volumes").OfType<string>().Select(ComposeFile.WithDefaults), volume => volume.Split(':')[1] == script);
        Assert.True(File.Exists(Repository.PathOf("deploy/" + mount.Split(':')[0])), $"{mount}: the script is not in deploy/.");
        Assert.DoesNotMatch(@"^(root|0)(:.*)?$", ComposeFile.WithDefaults(Assert.IsType<string>(loadRunner.At("user"))));
    }

    [Fact]
    public void CpusetVariantPinsEachApiToAsManyCoresAsItsQuota()
    {
        var cpuset = Yaml.LoadFile("deploy/compose.cpuset.yaml");
        var pinned = cpuset.Entries("services").ToDictionary(service => service.Key, service => service.Value.Text("cpuset"));

        Assert.Equal(_compose.Apis.Select(api => api.Key).Order(), pinned.Keys.Order());
        Assert.All(_compose.Apis, api => Assert.Equal(ComposeFile.Cpus(api.Value), CoreCount(pinned[api.Key])));
        Assert.Equal(new[] { 1, 2, 4 }, pinned.Values.Select(CoreCount).Order());
    }

    [Fact]
    public void EveryPublishedPortIsOnLoopbackUnlessSandboxBindNamesAnotherAddress()
    {
        var mappings = _compose.Services.SelectMany(service => service.Value.List("ports").Select(mapping => (service.Key, Mapping: Assert.IsType<string>(mapping)))).ToList();

        Assert.Contains(mappings, m => m.Key == _compose.Stub.Key);
        Assert.All(mappings, m => Assert.StartsWith($"${{{BindVariable}:-127.0.0.1}}:", m.Mapping, StringComparison.Ordinal));
        Assert.All(mappings, m => Assert.Equal("127.0.0.1", PortMapping.Parse(ComposeFile.WithDefaults(m.Mapping)).HostAddress));
    }

    [Fact]
    public void PrometheusIsOptInAndScrapesEveryApisControlPlane()
    {
        var prometheus = _compose.Services.Single(service => service.Key == "prometheus").Value;
        var config = Yaml.LoadFile("deploy/" + prometheus.List("volumes").OfType<string>().Single().Split(':')[0]);
        var targets = config.List("scrape_configs").SelectMany(job => job.List("static_configs")).SelectMany(group => group.List("targets")).OfType<string>();

        Assert.Equal(new object?[] { "monitoring" }, prometheus.List("profiles"));
        Assert.Equal(_compose.Apis.Select(api => $"{api.Key}:{ControlOptions.DefaultPort}"), targets);
        Assert.Equal(ControlRoutes.Metrics, Assert.Single(config.List("scrape_configs")).Text("metrics_path"));
    }

    [Fact]
    public void AgentsAreOptInAndConnectToTheCoordinatorWhereItListensAgainstAnApiThatRunsByDefault()
    {
        var coordinator = _compose.Services.Single(service => service.Key == "coordinator").Value;
        var agent = _compose.Services.Single(service => service.Key == "agent").Value;
        var coordinatorArgs = coordinator.List("command").Select(a => ComposeFile.WithDefaults(a?.ToString() ?? "")).ToList();
        var listen = coordinatorArgs[coordinatorArgs.IndexOf("--agent-listen") + 1];
        var target = new Uri(coordinatorArgs[coordinatorArgs.IndexOf("--target") + 1]);

        Assert.All(new[] { coordinator, agent }, service => Assert.Equal(new object?[] { "agents" }, service.List("profiles")));
        Assert.Contains($"tcp://coordinator:{listen.Split(':')[1]}", agent.List("command").Select(a => a?.ToString()));
        Assert.Contains(_compose.Apis, api => api.Key == target.Host && api.Value.At("profiles") is null);
        Assert.Equal("service_healthy", coordinator.Text("depends_on", target.Host, "condition"));
    }

    [Fact]
    public void TheWatchOverrideConnectsAnApisRuntimeToTheSocketAWatchListensOnInAVolumeOnlyTheyShare()
    {
        var file = Yaml.LoadFile("deploy/compose.watch.yaml");
        var services = file.Entries("services").ToDictionary(service => service.Key, service => service.Value);
        var watch = services["watch"];
        var (apiName, api) = Assert.Single(services, service => service.Key != "watch");
        // The runtime connects out to the socket (DOTNET_DiagnosticPorts, as the runner's own container observer sets it) without waiting for it.
        var ports = ComposeFile.Environment(api)[DiagnosticsSocket.PortsSetting]!.Split(',');
        var watchArgs = watch.List("command").Select(a => ComposeFile.WithDefaults(a?.ToString() ?? "")).ToList();
        var socketFolder = ports[0][..ports[0].LastIndexOf('/')];
        string VolumeAt(object? service) => service.List("volumes").OfType<string>().Select(v => v.Split(':')).Single(v => v[1] == socketFolder)[0];

        Assert.Contains(apiName, _compose.Apis.Select(a => a.Key));
        Assert.Equal("nosuspend", ports[1]);
        Assert.Equal(new[] { "watch", "--diagnostic-port", ports[0] }, watchArgs.Take(3));
        Assert.Equal(_compose.LoadRunner.Value.Text("image"), watch.Text("image"));
        Assert.Equal(VolumeAt(api), VolumeAt(watch));
        Assert.Equal("tmpfs", file.Text("volumes", VolumeAt(api), "driver_opts", "type"));
        // Its report goes to the reports folder the load runner writes to.
        Assert.Contains(watch.List("volumes").OfType<string>(), v => watchArgs[watchArgs.IndexOf("--out") + 1].StartsWith(v.Split(':')[^1] + "/", StringComparison.Ordinal) && _compose.LoadRunner.Value.List("volumes").Contains(v));
    }

    /// <summary>A service's "ADDRESS:HOST:CONTAINER" port mappings (as Compose resolves them by default), host port to container port.</summary>
    private static IReadOnlyDictionary<string, string> PublishedPorts(KeyValuePair<string, object?> service) =>
        service.Value.List("ports").Select(mapping => PortMapping.Parse(ComposeFile.WithDefaults(Assert.IsType<string>(mapping))))
            .ToDictionary(port => port.HostPort, port => port.ContainerPort);

    private sealed record PortMapping(string HostAddress, string HostPort, string ContainerPort)
    {
        public static PortMapping Parse(string mapping)
        {
            var parts = mapping.Split(':');
            Assert.True(parts.Length == 3, $"'{mapping}': expected ADDRESS:HOST:CONTAINER, so the host address is never left to the engine's default (every interface).");
            return new PortMapping(parts[0], parts[1], parts[2]);
        }
    }

    private static string HealthcheckCommand(object? service)
    {
        var test = service.List("healthcheck", "test").OfType<string>().ToList();
        Assert.Equal(new[] { "CMD", "bash", "-c" }, test.Take(3));
        return test[3];
    }

    /// <summary>How many CPUs a cpuset list such as "0", "0-1" or "0,2-3" names.</summary>
    private static int CoreCount(string? cpuset) =>
        (cpuset ?? "").Split(',', StringSplitOptions.RemoveEmptyEntries).Sum(range =>
        {
            var bounds = range.Split('-').Select(int.Parse).ToArray();
            return bounds[^1] - bounds[0] + 1;
        });
}
