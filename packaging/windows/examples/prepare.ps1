#Requires -Version 5.1
<#
.SYNOPSIS
Example prepare command for scheduled-events-bridge: get this VM's application ready for maintenance.

.DESCRIPTION
The agent runs it once per event that affects this VM, when the event is first seen (Scheduled, or Started without
warning), with the transition's CloudEvent (JSON) on standard input and these environment variables:
SEB_TRANSITION, SEB_EVENT_ID, SEB_EVENT_TYPE, SEB_EVENT_STATUS, SEB_NOT_BEFORE (ISO-8601 UTC or empty),
SEB_RESOURCES (comma-separated), SEB_DURATION_SECONDS, SEB_EVENT_SOURCE, SEB_DESCRIPTION, SEB_VM_NAME.
Exit code 0 is success; anything else (or an error) is a failure, reported to every sink as ActionFailed (Event Log
id 1102) and, with bridge.approval.auto.after-prepare=true, the event is then not approved early.

It may run more than once for the same event (the agent stopped while it ran), so it must be idempotent: this one
keeps a marker per EventId.

Copy it to %ProgramData%\scheduled-events-bridge\actions\ (where only Administrators can change it) and set, in
bridge.properties:

    bridge.action.prepare.command=& "$env:ProgramData/scheduled-events-bridge/actions/prepare.ps1" -StopService MyApp
    bridge.action.prepare.event-types=Reboot,Redeploy,Preempt,Terminate

It runs as the service's account, NT SERVICE\scheduled-events-bridge, which may not stop other services until it is
allowed to. Allow it for each service it stops (here MyApp) once, as an administrator:

    $sid = ([Security.Principal.NTAccount]'NT SERVICE\scheduled-events-bridge').Translate([Security.Principal.SecurityIdentifier]).Value
    $sddl = (sc.exe sdshow MyApp | Where-Object { $_ }) -join ''
    sc.exe sdset MyApp ($sddl -replace '^D:', "D:(A;;RPWPLCLOSW;;;$sid)")

RP start, WP stop, LC query its status, LO interrogate, SW list its dependent services: Stop-Service reads a
service's dependents before it stops it, whether it has any or not, and without SW it fails with "Cannot access
dependent services". A service that has running dependent services is not stopped behind their back: name them
first, each allowed the same way (-StopService MyAppWorker,MyApp; recover.ps1 -StartService MyApp,MyAppWorker).

.PARAMETER StopService
The Windows services to stop before the maintenance, in this order (dependent services before the service they
depend on); recover.ps1 -StartService starts them again.

.PARAMETER CheckpointUrl
An HTTP endpoint of the application that checkpoints or drains it (POSTed the CloudEvent; any 2xx is success).
#>
[CmdletBinding()]
param(
    [string[]] $StopService,
    [string] $CheckpointUrl
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

$cloudEvent = [Console]::In.ReadToEnd()
$eventId = $env:SEB_EVENT_ID
if ($eventId -notmatch '^[A-Za-z0-9-]{1,100}$') { throw "SEB_EVENT_ID '$eventId' is not an EventId" }

# Markers live in the agent's temporary directory, which the service may write.
$markers = Join-Path $env:ProgramData 'scheduled-events-bridge\tmp\prepared'
New-Item -ItemType Directory -Force -Path $markers | Out-Null
$marker = Join-Path $markers "$eventId.done"
if (Test-Path -LiteralPath $marker) {
    Write-Output "Already prepared for $env:SEB_EVENT_TYPE $eventId"
    exit 0
}

Write-Output "Preparing for $env:SEB_EVENT_TYPE $eventId of $env:SEB_RESOURCES, not before $env:SEB_NOT_BEFORE"
if ($CheckpointUrl) {
    Invoke-RestMethod -Method Post -Uri $CheckpointUrl -ContentType 'application/json' -Body $cloudEvent -TimeoutSec 120 |
        Out-Null
    Write-Output "Checkpoint requested from $CheckpointUrl"
}
foreach ($name in @($StopService | Where-Object { $_ })) {
    $service = Get-Service -Name $name
    if ($service.Status -ne 'Stopped') {
        $running = @($service.DependentServices | Where-Object { $_.Status -ne 'Stopped' } | ForEach-Object { $_.Name })
        if ($running.Count -gt 0) {
            $message = "Service $name has running dependent services ($($running -join ', ')): name them before it, " +
                "e.g. -StopService $(($running + $name) -join ','), each allowed as this script's help shows"
            throw $message
        }
        Stop-Service -Name $name
        $service.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(120))
    }
    Write-Output "Service $name stopped"
}
Set-Content -LiteralPath $marker -Value $cloudEvent -Encoding UTF8
exit 0
