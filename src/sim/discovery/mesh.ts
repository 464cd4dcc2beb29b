import type { SimContext } from '../context';
import { MeshClients, type MeshParams } from './mesh-client';
import { MeshServers } from './mesh-server';
import { ZooKeeper } from './zookeeper';

/** Service discovery as a whole: the ZooKeeper ensemble, the announced backends and the client pods with their proxies. */
export class Mesh {
  readonly zk: ZooKeeper;
  readonly servers: MeshServers;
  readonly clients: MeshClients;

  /** Deployments whose pods are mesh clients. */
  private readonly clientDeployments = new Set<string>();

  constructor(ctx: SimContext, zookeeperServers: number, params: MeshParams) {
    this.zk = new ZooKeeper(ctx, zookeeperServers, params.zookeeper);
    this.servers = new MeshServers(ctx, this.zk, params.nerve, {
      workers: params.mesh.backendWorkers,
      checkCostMs: params.mesh.checkCostMs,
      checkInterMs: params.haproxy.checkInterMs,
    });
    this.clients = new MeshClients(ctx, this.zk, this.servers, params);
  }

  markClients(deployment: string): void {
    this.clientDeployments.add(deployment);
  }

  runsClients(deployment: string): boolean {
    return this.clientDeployments.has(deployment);
  }
}
