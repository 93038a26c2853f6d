#Requires -Version 5.1
#Requires -RunAsAdministrator
<#
.SYNOPSIS
Installs scheduled-events-bridge as a Windows service, or updates an installed one.

.DESCRIPTION
Run from the unpacked zip, in an elevated PowerShell:

    .\install.ps1

It copies the program to -InstallDir, keeps its settings and state in -DataDir (%ProgramData%\scheduled-events-bridge:
bridge.properties, jvm.options, logs\, the state and the spool), installs the service "scheduled-events-bridge"
(Apache Commons Daemon procrun, running the agent on the Java found here) under its own virtual account
NT SERVICE\scheduled-events-bridge, restarts it when it fails, registers the Event Log source, opens the firewall for
the ports bridge.properties configures (and only those), and starts it.

Running it again (a new version, or after editing bridge.properties or jvm.options) updates the service in place:
your bridge.properties and jvm.options are never overwritten, and the state carries on, so no transition is repeated
or lost. uninstall.ps1 removes the service and keeps the settings and the state.

Java 17 or newer must be installed; none is bundled. The one command that installs it:

    winget install Microsoft.OpenJDK.17

.PARAMETER JavaHome
The Java installation to run the agent on (the directory with bin\server\jvm.dll). Default: JAVA_HOME, else the
java.exe on the PATH, else the newest JDK under Program Files (Microsoft, Eclipse Adoptium, Azul Zulu, Oracle).

.PARAMETER InstallDir
Where the program goes. Default: %ProgramFiles%\scheduled-events-bridge.

.PARAMETER DataDir
Settings, logs and state. Default: %ProgramData%\scheduled-events-bridge.

.PARAMETER NoStart
Install or update, but do not start the service.

.EXAMPLE
.\install.ps1 -JavaHome 'C:\Program Files\Microsoft\jdk-17.0.13.11-hotspot'
#>
[CmdletBinding()]
param(
    [string] $JavaHome,
    [string] $InstallDir = (Join-Path $env:ProgramFiles 'scheduled-events-bridge'),
    [string] $DataDir = (Join-Path $env:ProgramData 'scheduled-events-bridge'),
    [switch] $NoStart
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

$ServiceName = 'scheduled-events-bridge'
$Account = "NT SERVICE\$ServiceName"
$Jar = "$ServiceName.jar"
$Exe = "$ServiceName.exe"
# Well-known SIDs: the same on every Windows, whatever its language.
$SystemSid = '*S-1-5-18'
$AdministratorsSid = '*S-1-5-32-544'
$UsersSid = '*S-1-5-32-545'
$InstallJavaHint = 'Install Java 17 or newer with: winget install Microsoft.OpenJDK.17 (then run this script again ' +
    'in a new PowerShell window), or name one with -JavaHome.'

function Invoke-Native {
    # Runs a program and stops on a non-zero exit code, naming it; its output is shown.
    param([Parameter(Mandatory)][string] $Program, [string[]] $Arguments = @())
    & $Program @Arguments
    if ($LASTEXITCODE -ne 0) {
        throw "$Program $($Arguments -join ' ') failed with exit code $LASTEXITCODE"
    }
}

function Get-JavaMajorVersion {
    # The feature version from the release file every JDK and JRE since 9 carries, e.g. JAVA_VERSION="17.0.13".
    param([Parameter(Mandatory)][string] $JavaDir)
    $release = Join-Path $JavaDir 'release'
    if (-not (Test-Path -LiteralPath $release)) { return 0 }
    $line = Get-Content -LiteralPath $release | Where-Object { $_ -match '^JAVA_VERSION="([0-9]+)' } | Select-Object -First 1
    if ($null -eq $line) { return 0 }
    [void]($line -match '^JAVA_VERSION="([0-9]+)')
    return [int]$Matches[1]
}

function Find-JavaHome {
    param([string] $Requested)
    $candidates = New-Object System.Collections.Generic.List[string]
    if ($Requested) { $candidates.Add($Requested) }
    elseif ($env:JAVA_HOME) { $candidates.Add($env:JAVA_HOME) }
    $onPath = Get-Command java.exe -ErrorAction SilentlyContinue | Select-Object -First 1
    if (-not $Requested -and $onPath) {
        $candidates.Add((Split-Path -Parent (Split-Path -Parent $onPath.Source)))
    }
    if (-not $Requested) {
        foreach ($pattern in @('Microsoft\jdk-*', 'Eclipse Adoptium\jdk-*', 'Eclipse Adoptium\jre-*', 'Zulu\zulu-*',
                'Java\jdk-*')) {
            Get-ChildItem -Path (Join-Path $env:ProgramFiles $pattern) -Directory -ErrorAction SilentlyContinue |
                Sort-Object -Property Name -Descending | ForEach-Object { $candidates.Add($_.FullName) }
        }
    }
    foreach ($candidate in $candidates) {
        $jvm = Join-Path $candidate 'bin\server\jvm.dll'
        if ((Test-Path -LiteralPath $jvm) -and (Get-JavaMajorVersion -JavaDir $candidate) -ge 17) {
            return (Resolve-Path -LiteralPath $candidate).ProviderPath.TrimEnd('\')
        }
    }
    if ($Requested) {
        throw "-JavaHome $Requested is not a Java 17 or newer (no bin\server\jvm.dll, or its release file names an " +
            "older version). $InstallJavaHint"
    }
    throw "No Java 17 or newer was found (JAVA_HOME, PATH, Program Files). $InstallJavaHint"
}

function Read-Properties {
    # The keys set in a .properties file (comments and blank lines left out; the last value of a key wins).
    param([Parameter(Mandatory)][string] $Path)
    $values = @{}
    foreach ($line in Get-Content -LiteralPath $Path -Encoding UTF8) {
        if ($line -match '^\s*([^#!\s=:][^=:\s]*)\s*[=:]\s*(.*?)\s*$') {
            $values[$Matches[1]] = $Matches[2]
        }
    }
    return $values
}

function Set-PrivateAcl {
    # Only SYSTEM, Administrators and the service account; -ServiceRights M (modify) or RX (read and run).
    param([Parameter(Mandatory)][string] $Path, [Parameter(Mandatory)][string] $ServiceRights, [switch] $Container)
    $inherit = if ($Container) { '(OI)(CI)' } else { '' }
    Invoke-Native icacls.exe @($Path, '/inheritance:r', '/grant:r', "${SystemSid}:${inherit}F",
        "${AdministratorsSid}:${inherit}F", "${Account}:${inherit}${ServiceRights}", '/Q')
    Invoke-Native icacls.exe @($Path, '/setowner', $AdministratorsSid, '/Q')
}

$InstallDir = $InstallDir.TrimEnd('\')
$DataDir = $DataDir.TrimEnd('\')
$Source = $PSScriptRoot
foreach ($file in @($Jar, $Exe, 'bridge.properties', 'jvm.options')) {
    if (-not (Test-Path -LiteralPath (Join-Path $Source $file))) {
        throw "$file is missing beside install.ps1: run it from the unpacked scheduled-events-bridge zip"
    }
}

$JavaHome = Find-JavaHome -Requested $JavaHome
$JavaMajor = Get-JavaMajorVersion -JavaDir $JavaHome
Write-Host "Java $JavaMajor at $JavaHome"

# An update: the service stops first (a graceful stop: undelivered messages stay in the spool for the next start).
$existing = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
if ($existing -and $existing.Status -ne 'Stopped') {
    Write-Host "Stopping $ServiceName"
    Stop-Service -Name $ServiceName
    $existing.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(60))
}

# The program.
New-Item -ItemType Directory -Force -Path $InstallDir | Out-Null
if ((Resolve-Path -LiteralPath $Source).ProviderPath.TrimEnd('\') -ne (Resolve-Path -LiteralPath $InstallDir).ProviderPath.TrimEnd('\')) {
    Copy-Item -Path (Join-Path $Source '*') -Destination $InstallDir -Recurse -Force
}

# Settings and state. A copy of bridge.properties and jvm.options is made once; later runs keep yours.
foreach ($dir in @($DataDir, (Join-Path $DataDir 'logs'), (Join-Path $DataDir 'tmp'), (Join-Path $DataDir 'actions'))) {
    New-Item -ItemType Directory -Force -Path $dir | Out-Null
}
foreach ($file in @('bridge.properties', 'jvm.options')) {
    $target = Join-Path $DataDir $file
    if (-not (Test-Path -LiteralPath $target)) {
        Copy-Item -LiteralPath (Join-Path $InstallDir $file) -Destination $target
        Write-Host "Created $target"
    } elseif ((Get-FileHash -LiteralPath $target).Hash -ne (Get-FileHash -LiteralPath (Join-Path $InstallDir $file)).Hash) {
        Write-Host "Kept your $target (this version's default is $(Join-Path $InstallDir $file))"
    }
}

# The service: procrun's options come from the agent's jar, with the JVM options of jvm.options.
$optionsFile = Join-Path $DataDir 'tmp\service-options.txt'
$java = Join-Path $JavaHome 'bin\java.exe'
Invoke-Native $java @('-cp', (Join-Path $InstallDir $Jar), 'io.github.scheduledeventsbridge.windows.ServiceOptions',
    '--install-dir', $InstallDir, '--data-dir', $DataDir, '--jvm', (Join-Path $JavaHome 'bin\server\jvm.dll'),
    '--jvm-options', (Join-Path $DataDir 'jvm.options'), '--out', $optionsFile)
$serviceOptions = @(Get-Content -LiteralPath $optionsFile -Encoding UTF8 | Where-Object { $_ })
Remove-Item -LiteralPath $optionsFile
$verb = if ($existing) { 'US' } else { 'IS' }
Invoke-Native (Join-Path $InstallDir $Exe) (@("//$verb//$ServiceName") + $serviceOptions)
Write-Host "Service $ServiceName $(if ($existing) { 'updated' } else { 'installed' })"

# Its own virtual account (no password, no profile to manage), with an unrestricted service SID for the ACLs and the
# firewall rules below.
Invoke-Native sc.exe @('config', $ServiceName, 'obj=', $Account)
Invoke-Native sc.exe @('sidtype', $ServiceName, 'unrestricted')
# Restarted 5 s after a failure (a crash, a hard kill, an exit code other than 0), then 10 s, then every minute; the
# count starts over after a day without failure.
Invoke-Native sc.exe @('failure', $ServiceName, 'reset=', '86400', 'actions=', 'restart/5000/restart/10000/restart/60000')
Invoke-Native sc.exe @('failureflag', $ServiceName, '1')

# The program is read-only for all but SYSTEM and Administrators: the service runs it and must not be able to change it.
Invoke-Native icacls.exe @($InstallDir, '/inheritance:r', '/grant:r', "${SystemSid}:(OI)(CI)F",
    "${AdministratorsSid}:(OI)(CI)F", "${UsersSid}:(OI)(CI)RX", "${Account}:(OI)(CI)RX", '/Q')
Invoke-Native icacls.exe @((Join-Path $InstallDir '*'), '/reset', '/T', '/C', '/Q')

# Private: settings may hold secrets (webhook and approval secrets, the SMTP password), the spool holds the messages.
# The service may change its state, not its settings nor the commands it runs.
Set-PrivateAcl -Path $DataDir -ServiceRights 'M' -Container
Invoke-Native icacls.exe @((Join-Path $DataDir '*'), '/reset', '/T', '/C', '/Q')
Set-PrivateAcl -Path (Join-Path $DataDir 'actions') -ServiceRights 'RX' -Container
foreach ($file in @('bridge.properties', 'jvm.options')) {
    Set-PrivateAcl -Path (Join-Path $DataDir $file) -ServiceRights 'RX'
}

$settings = Read-Properties -Path (Join-Path $DataDir 'bridge.properties')

# The Event Log source, with .NET's message file: each entry shows its own text in the Event Viewer.
$eventSource = if ($settings.ContainsKey('bridge.eventlog.source') -and $settings['bridge.eventlog.source']) {
    $settings['bridge.eventlog.source'] } else { $ServiceName }
if (-not [System.Diagnostics.EventLog]::SourceExists($eventSource)) {
    [System.Diagnostics.EventLog]::CreateEventSource($eventSource, 'Application')
    Write-Host "Registered the Event Log source '$eventSource' in the Application log"
}

# Firewall: inbound only to the ports this configuration listens on, for this service alone. Health and metrics stay
# on 127.0.0.1 unless bridge.management.host says otherwise.
Get-NetFirewallRule -Group $ServiceName -ErrorAction SilentlyContinue | Remove-NetFirewallRule
$ports = [ordered]@{}
if ($settings.ContainsKey('bridge.approval.secret') -and $settings['bridge.approval.secret']) {
    $ports['approval API'] = if ($settings.ContainsKey('bridge.approval.port')) { $settings['bridge.approval.port'] } else { '8089' }
}
if ($settings.ContainsKey('bridge.drain.port') -and $settings['bridge.drain.port']) {
    $ports['drain signal'] = $settings['bridge.drain.port']
}
if ($settings.ContainsKey('bridge.management.host') -and
        $settings['bridge.management.host'] -notin @('', '127.0.0.1', 'localhost', '::1')) {
    $ports['management'] = if ($settings.ContainsKey('bridge.management.port')) { $settings['bridge.management.port'] } else { '8080' }
}
foreach ($name in $ports.Keys) {
    New-NetFirewallRule -Name "$ServiceName-$($name -replace ' ', '-')" -DisplayName "$ServiceName $name" `
        -Group $ServiceName -Direction Inbound -Action Allow -Protocol TCP -LocalPort $ports[$name] `
        -Program (Join-Path $InstallDir $Exe) -Service $ServiceName | Out-Null
    Write-Host "Firewall: TCP $($ports[$name]) open for the $name"
}

if ($NoStart) {
    Write-Host "Not started (-NoStart): Start-Service $ServiceName"
    return
}
function Show-ServiceLog {
    $log = Get-ChildItem -Path (Join-Path $DataDir 'logs') -Filter '*-std*.log' -ErrorAction SilentlyContinue |
        Sort-Object -Property LastWriteTime -Descending | Select-Object -First 2
    foreach ($file in $log) { Get-Content -LiteralPath $file.FullName -Tail 15 -Encoding UTF8 }
}
try {
    Start-Service -Name $ServiceName
} catch {
    Show-ServiceLog
    throw "$ServiceName did not start: see the lines above, and $(Join-Path $DataDir 'logs')"
}
# A configuration the agent refuses stops it within seconds, with one line in its log saying why.
Write-Host 'Started; checking that it keeps running (20 s)'
$deadline = (Get-Date).AddSeconds(20)
while ((Get-Date) -lt $deadline -and (Get-Service -Name $ServiceName).Status -eq 'Running') {
    Start-Sleep -Seconds 1
}
if ((Get-Service -Name $ServiceName).Status -ne 'Running') {
    Show-ServiceLog
    throw "$ServiceName did not keep running: see the lines above, and $(Join-Path $DataDir 'logs')"
}
Write-Host "$ServiceName is running. Log: $(Join-Path $DataDir 'logs'); Event Log: Get-EventLog -LogName Application -Source '$eventSource' -Newest 10"
