import { exec } from "node:child_process";

export function ping(host: string): void {
  exec(`ping -c 1 ${host}`);
}
