/**
 * Every answer a suite receives, checked against Cloudflare's published OpenAPI document
 * (official-schema.ts) as it arrives: a `fetch` for the official client's `fetch` option, and an
 * `inject` for fastify's `app.inject`. Answers to requests that map to no official operation (rulekit's
 * own routes, /healthz, routes newer than the document but for those that are the newer path of an
 * operation: official-schema.ts's NEWER_THAN_DOCUMENT) pass unchecked; the others' violations are
 * collected, and the suite asserts at its end that there are none ({@link AnswerChecker.expectConforming}).
 * @module
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { API_PREFIX } from '../../src/server/index.js';
import { checkedTemplate, checkResponse } from './official-schema.js';

/** An answer that the document refuses: the request and what is wrong. */
export interface Violation {
  request: string;
  errors: string[];
}

export class AnswerChecker {
  /** Answers checked against an official operation. */
  checked = 0;
  readonly violations: Violation[] = [];

  /**
   * Check one answer: `url` a path or URL (under /client/v4 for the API), `text` the body as sent.
   * Returns its errors (empty when it conforms or maps to no official operation).
   */
  check(method: string, url: string, status: number, text: string): string[] {
    const pathname = new URL(url, 'http://localhost').pathname;
    if (!pathname.startsWith(API_PREFIX + '/')) return [];
    const path = pathname.slice(API_PREFIX.length).replace(/\/+$/, '');
    const template = checkedTemplate(method, path);
    if (!template) return [];
    this.checked++;
    const errors = checkResponse(method, template, status, text);
    if (errors.length) this.violations.push({ request: `${method.toUpperCase()} ${path} → ${status}`, errors });
    return errors;
  }

  /** A `fetch` for the official client (`new Cloudflare({ fetch: checker.fetch })`) that checks each answer. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    this.check(method, url, response.status, await response.clone().text());
    return response;
  };

  /** `app.inject(options)`, its answer checked. */
  async inject(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
    const response = await app.inject(options);
    const url = typeof options.url === 'string' ? options.url : options.url?.pathname ?? options.path?.toString() ?? '/';
    this.check(options.method ?? 'GET', url, response.statusCode, response.body);
    return response;
  }

  /** Fails, listing every answer the document refuses; also fails when nothing was checked (a wiring mistake). */
  expectConforming(): void {
    expect(this.checked, 'no answer was checked against the document: is the checker wired to the client?').toBeGreaterThan(0);
    expect(this.violations.map((v) => `${v.request}\n  ${v.errors.join('\n  ')}`).join('\n\n'), 'answers that Cloudflare\'s OpenAPI document refuses').toBe('');
  }
}
